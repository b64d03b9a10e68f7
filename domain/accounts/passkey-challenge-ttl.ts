// How long a WebAuthn challenge may be answered (register, sign-in, re-auth, vault unlock). Its own
// module: the routes quote it as the ceremonies' timeout without loading the WebAuthn library.
export const PASSKEY_CHALLENGE_TTL_SECONDS = 300;
