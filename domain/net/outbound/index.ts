// The SSRF-safe outbound client and its policies: import from here.
export { checkAddress, type AddressVerdict } from './address-policy.ts';
export { parseIpLiteral, parseIpv4Whatwg, type IpLiteral } from './ip-literal.ts';
export { parseExemptions, describeExemptions, isExempt, NO_EXEMPTIONS, type Exemptions } from './exemptions.ts';
export { checkUrl, isPortAllowed, type UrlPolicyOptions, type UrlVerdict, type OutboundTarget } from './url-policy.ts';
export { systemResolver, type Resolver, type ResolvedAddress } from './resolver.ts';
export { checkStoredDestination, RESOLVE_TIMEOUT_MS } from './destination-check.ts';
export {
  createOutboundClient, bodyExcerpt, OUTBOUND_DEFAULTS,
  type OutboundClient, type OutboundClientOptions, type OutboundRequest, type OutboundResult,
  type OutboundResponse, type OutboundFailure, type OutboundFailureKind,
} from './client.ts';
