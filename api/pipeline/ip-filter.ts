// Stage 5 (§7): the organization's IP allow/block rules, applied after authentication.
import type { Middleware } from 'koa';
import type { RequestState } from '../route.ts';
import type { IpRuleCache } from '../../domain/org/ip-rule-cache.ts';
import { ipDecision } from '../../domain/org/ip-rule-cache.ts';
import { forbidden } from '../../domain/errors.ts';

export function ipFilter(rules: IpRuleCache): Middleware<RequestState> {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (principal) {
      const decision = ipDecision(await rules.rulesFor(principal.orgId, principal.type), ctx.state.clientIp);
      if (decision === 'block') throw forbidden('Requests from your IP address are blocked by your organization');
      if (decision === 'not_allowed') throw forbidden("Your IP address is not in your organization's allow list");
    }
    await next();
  };
}
