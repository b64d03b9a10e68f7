// A workflow_spec as callers send it (spec §2.12, §2.14) → the normalized steps the engine runs.
// Both forms of the reference are accepted: a bare array or `{steps: [...]}`; `type` or its older
// spelling `action`; parameters at a step's top level or under `params`. Every refusal is a 400
// naming the step and the field, e.g. `workflow_spec.steps[2].duration_secs: must be at most 30`.
import { invalidField } from '../../errors.ts';
import {
  CONDITION_SUBSTEP_TYPES, LATER_STEP_TYPES, STEP_ALIASES, STEP_LIMITS, STEP_TYPES, type Step, type StepType,
} from './step-types.ts';
import { checkStepParams, isPlainObject, mergeStepParams, StepParamError } from './step-params.ts';

const ROOT = 'workflow_spec';
const MAX_EXPRESSION = 1000;
const MAX_NAME = 64;
/** Names are reached as `{{steps.<name>.<field>}}`: no dots or braces, not all digits (an index). */
const NAME_FORBIDDEN = /[.{}\u0000-\u001f\u007f]/;

type Raw = Record<string, unknown>;
type Canonical = StepType | (typeof LATER_STEP_TYPES)[number];

function fail(field: string, message: string): never {
  throw invalidField(field, message);
}

const KNOWN_LIST = `${STEP_TYPES.join(', ')} (also accepted: ${Object.keys(STEP_ALIASES).filter((a) => !isLater(STEP_ALIASES[a]!)).join(', ')})`;

function isLater(t: string): t is (typeof LATER_STEP_TYPES)[number] {
  return (LATER_STEP_TYPES as readonly string[]).includes(t);
}

function canonicalType(spelled: string): Canonical | null {
  const key = spelled.trim().toLowerCase();
  if ((STEP_TYPES as readonly string[]).includes(key) || isLater(key)) return key as Canonical;
  return Object.hasOwn(STEP_ALIASES, key) ? STEP_ALIASES[key]! : null;
}

const quote = (s: string) => JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}…` : s);

/** An optional string field of a step (null counts as absent). */
function optionalString(step: Raw, key: string, at: string, max: number): string | undefined {
  const v = step[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') fail(`${at}.${key}`, 'must be a string');
  if (v.length > max) fail(`${at}.${key}`, `must be at most ${max} characters`);
  return v;
}

function parseName(step: Raw, at: string, names: Set<string>): string | undefined {
  const name = optionalString(step, 'name', at, MAX_NAME);
  if (name === undefined) return undefined;
  if (name.trim() === '') fail(`${at}.name`, 'must not be empty');
  if (/^\d+$/.test(name)) fail(`${at}.name`, 'must not be all digits (steps are also reached by index)');
  if (NAME_FORBIDDEN.test(name)) fail(`${at}.name`, 'must not contain dots, braces or control characters');
  if (names.has(name)) fail(`${at}.name`, `${quote(name)} is used by another step`);
  names.add(name);
  return name;
}

function parseBranch(v: unknown, at: string, names: Set<string>): Step[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(at, 'must be an array of steps');
  if (v.length > STEP_LIMITS.maxSteps) fail(at, `must contain at most ${STEP_LIMITS.maxSteps} steps`);
  return v.map((s, j) => parseStep(s, `${at}[${j}]`, names, true));
}

function parseStep(raw: unknown, at: string, names: Set<string>, isSubStep: boolean): Step {
  if (!isPlainObject(raw)) fail(at, 'must be an object');
  const typeKey = raw.type !== undefined && raw.type !== null ? 'type' : 'action';
  const spelled = raw[typeKey];
  if (spelled === undefined || spelled === null) fail(`${at}.type`, 'is required (type, or its alias action)');
  if (typeof spelled !== 'string') fail(`${at}.${typeKey}`, 'must be a string');
  const type = canonicalType(spelled);
  if (type === null) fail(`${at}.${typeKey}`, `unknown step type ${quote(spelled)}; known types: ${KNOWN_LIST}`);
  if (isSubStep && !(CONDITION_SUBSTEP_TYPES as readonly string[]).includes(type)) {
    fail(`${at}.${typeKey}`, `a condition's steps may only be of type ${CONDITION_SUBSTEP_TYPES.join(', ')}; not ${type}`);
  }

  const name = parseName(raw, at, names);
  const skipIf = optionalString(raw, 'skip_if', at, MAX_EXPRESSION);
  const runIf = optionalString(raw, 'run_if', at, MAX_EXPRESSION);

  let params: Raw;
  try {
    params = mergeStepParams(raw);
  } catch (e) {
    if (e instanceof StepParamError) fail(`${at}.${e.field}`, e.message);
    throw e;
  }

  // A condition's own fields may also sit under params (params wins, as for any parameter).
  let condition: Pick<Step, 'expression' | 'if_true' | 'if_false'> | undefined;
  if (type === 'condition') {
    const own: Raw = { ...raw };
    for (const k of ['expression', 'if_true', 'if_false']) {
      if (params[k] !== undefined) own[k] = params[k];
      delete params[k];
    }
    const expression = optionalString(own, 'expression', at, MAX_EXPRESSION);
    if (expression === undefined || expression.trim() === '') fail(`${at}.expression`, 'is required');
    const ifTrue = parseBranch(own.if_true, `${at}.if_true`, names);
    const ifFalse = parseBranch(own.if_false, `${at}.if_false`, names);
    if (ifTrue.length === 0 && ifFalse.length === 0) fail(`${at}.if_true`, 'a condition needs at least one step in if_true or if_false');
    condition = { expression, if_true: ifTrue, if_false: ifFalse };
  }

  try {
    params = checkStepParams(type, params, 'definition');
  } catch (e) {
    if (e instanceof StepParamError) fail(`${at}.${e.field}`, e.message);
    throw e;
  }
  // Refused after its parameters were checked, so the caller learns everything we can tell now.
  if (isLater(type)) fail(`${at}.${typeKey}`, `step type ${quote(type)} is not available yet in this release`);

  return {
    type: type as StepType,
    ...(name !== undefined ? { name } : {}),
    ...(skipIf !== undefined && skipIf.trim() !== '' ? { skip_if: skipIf } : {}),
    ...(runIf !== undefined && runIf.trim() !== '' ? { run_if: runIf } : {}),
    params,
    ...condition,
  };
}

/**
 * The normalized steps of a workflow_spec (canonical types, params merged with their defaults,
 * templates kept for run time). Throws a 400 Problem naming `workflow_spec.steps[i].<field>`.
 * Step names are unique across the whole spec, branches included: they share one namespace in
 * `{{steps.<name>}}`. A condition's branches hold at most STEP_LIMITS.maxSteps steps each.
 */
export function parseWorkflowSpec(raw: unknown): Step[] {
  let list: unknown;
  if (Array.isArray(raw)) list = raw;
  else if (isPlainObject(raw) && raw.steps !== undefined) list = raw.steps;
  else fail(ROOT, 'must be an array of steps or an object with a steps array');
  if (!Array.isArray(list)) fail(`${ROOT}.steps`, 'must be an array of steps');
  if (list.length === 0) fail(`${ROOT}.steps`, 'must contain at least 1 step');
  if (list.length > STEP_LIMITS.maxSteps) fail(`${ROOT}.steps`, `must contain at most ${STEP_LIMITS.maxSteps} steps`);
  const names = new Set<string>();
  return list.map((s, i) => parseStep(s, `${ROOT}.steps[${i}]`, names, false));
}

/**
 * The steps of a stored spec, at run time. The same parse as on create: a spec that was accepted
 * yields the same steps again; it throws only if the rules have tightened since it was stored,
 * and the caller then fails the run with the Problem's detail. Not workflow-safe (zod): call it
 * in an activity, never in the workflow sandbox.
 */
export const stepsOf = (raw: unknown): Step[] => parseWorkflowSpec(raw);
