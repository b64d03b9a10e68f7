// The automation assistant (spec §4.16; reference assistDraftAutomation, assistAutomationSession):
// human-only. A draft comes from the operator's default model (AI_PROVIDER) and is returned only
// once it passes the create validator; a session is a 15-minute token of the calling user.
import { route } from '../../route.ts';
import { assistDraftBody, assistSessionBody } from './assist-schema.ts';
import { AssistDraftSchema, AssistSessionSchema, presentAssistDraft, presentAssistSession } from '../../presenters/automation-assist.ts';

const HUMANS_ONLY = 'Human-only (agents never); or not an active member of the organization';

export const assistRoutes = [
  route({
    method: 'POST', path: '/v1/automations/assist/draft', tag: 'Automations', auth: 'user',
    summary: 'Draft an automation from a request in natural language: {name, trigger_type, cron_expr, workflow_spec} that passes '
      + 'the create validator (one repair round with the model), plus the model\'s reply. Nothing is created',
    body: assistDraftBody,
    success: { status: 200, description: 'The draft and the reply', schema: AssistDraftSchema },
    errors: {
      400: 'A field is missing or invalid (message, agent_id, timezone)',
      403: HUMANS_ONLY,
      422: 'The model\'s draft did not pass validation after one repair, or the model declined',
      502: 'The model provider failed or gave an unreadable answer',
      503: 'No model provider is configured (AI_PROVIDER), or the provider is unavailable or rate-limited (Retry-After when it said)',
    },
    handler: async ({ body, action, services: s }) => presentAssistDraft(await s.assist.draft(action, body)),
  }),
  route({
    method: 'POST', path: '/v1/automations/assist/session', tag: 'Automations', auth: 'user',
    summary: 'Mint a 15-minute access token of the calling user for the assistant\'s CLI or an agent runtime (optional runtime_id, echoed)',
    body: assistSessionBody,
    success: { status: 200, description: 'The token (shown once), its lifetime, scopes and a CLI hint', schema: AssistSessionSchema },
    errors: { 400: 'runtime_id is not a UUID', 403: HUMANS_ONLY },
    handler: async ({ body, action, services: s }) => presentAssistSession(await s.assist.session(action, body)),
  }),
];
