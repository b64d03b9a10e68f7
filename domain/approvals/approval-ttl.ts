// How long an agent's request may ask to wait for a decision (`expires_in_seconds`): from 2
// seconds (tests, short-lived actions) to 7 days (the quick-decide links' own lifetime). Its own
// file: the route's input schema reads it without loading the commands.
export const MIN_APPROVAL_TTL_SECONDS = 2;
export const MAX_APPROVAL_TTL_SECONDS = 7 * 24 * 3600;
