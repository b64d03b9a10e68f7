// The shape every automation step takes once normalized (spec §2.14): its canonical `type` (after
// the aliases), its optional name and conditions, its parameters in one `params` object (fields
// given at the step's top level are folded in), and the branches of a `condition` step. Pure
// types and constants: the workflow bundle imports this file.

/** Step types this service runs today. */
export const STEP_TYPES = [
  'log', 'http', 'wait', 'notify', 'rotate_generate', 'get_secret', 'put_secret',
  'memory_get', 'memory_put', 'memory_search', 'approval_request', 'condition', 'submit_transaction', 'swap',
  'ai_generate', 'execute_intent',
] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** Types of the spec that arrive with later work; refused at validation with a 400 that says so. */
export const LATER_STEP_TYPES = [] as const;

/** Every accepted spelling of a type: the spec's aliases and the reference's names. */
export const STEP_ALIASES: Readonly<Record<string, StepType | (typeof LATER_STEP_TYPES)[number]>> = {
  run_agent_task: 'log',
  execute_http: 'http', http_request: 'http', webhook_alert: 'http', webhook_deliver: 'http',
  rotate_secret: 'rotate_generate',
  notify_human: 'notify',
  execute_binding: 'execute_intent',
  sign_intent: 'submit_transaction',
};

/** Sub-steps of a `condition` may only be of these types (spec §2.14). */
export const CONDITION_SUBSTEP_TYPES = ['log', 'http', 'notify', 'ai_generate', 'memory_get', 'memory_put'] as const;

/** Step types whose work is done by an activity (I/O); the rest run inside the workflow. */
export const ACTIVITY_STEP_TYPES: readonly StepType[] = [
  'http', 'notify', 'rotate_generate', 'get_secret', 'put_secret', 'memory_get', 'memory_put', 'memory_search', 'submit_transaction', 'swap',
  'ai_generate', 'execute_intent',
];

export type Step = {
  type: StepType;
  /** Lets later steps say `{{steps.<name>.<field>}}`. */
  name?: string;
  /** Skip the step when this expression is truthy. */
  skip_if?: string;
  /** Run the step only when this expression is truthy. */
  run_if?: string;
  params: Record<string, unknown>;
  /** `condition` only. */
  expression?: string;
  if_true?: Step[];
  if_false?: Step[];
};

/** What `{{…}}` templates can reach (spec §2.14). `steps` holds outputs by index and by name. */
export type TemplateScope = {
  steps: Record<string, unknown>;
  webhook_payload?: unknown;
  trigger?: unknown;
  _event?: unknown;
  input?: unknown;
};

/** Hard limits of the spec (§8) that the validator enforces. */
export const STEP_LIMITS = {
  waitMaxSeconds: 30,
  rotateLength: { min: 8, max: 1024, default: 32 },
  aiMaxTokens: 16384,
  memorySearchTopK: { max: 50, default: 10 },
  maxSteps: 50,
} as const;
