// Path segments that are credentials themselves are masked before a path is recorded.
const SECRET_SEGMENTS: RegExp[] = [
  /(\/webhook\/)[^/]+/g,            // automation webhook tokens
  /(\/v1\/platform\/claim\/)[^/]+/g, // platform claim tokens
  /(\/v1\/agent-enrollments\/)[^/]+/g, // agent enrollment approval tokens
  /(\/v1\/admin\/temporal-codec\/links\/)[^/]+/g, // operators' codec links for the Temporal UI
  /(\/v1\/shares?\/)(?!(?:inbound|outbound)(?:[/?]|$))[^/?]+/g, // share link ids (they open link shares)
];

export function redactPath(path: string): string {
  let p = path.length > 512 ? `${path.slice(0, 512)}…` : path;
  for (const r of SECRET_SEGMENTS) p = p.replace(r, '$1[redacted]');
  return p;
}
