// Conditions of steps (spec §2.14): `skip_if`, `run_if` and the expression of a `condition` step.
// WORKFLOW-SAFE: runs in the Temporal workflow sandbox; imports only types and templates.ts.
//
// The RAW expression is split on its first operator before any template is resolved, so a
// substituted value that contains ` == ` (say, from a webhook payload) cannot change the
// comparison: it only ever becomes one side's text.
import type { Step, TemplateScope } from '../spec/step-types.ts';
import { resolveTemplateString } from './templates.ts';

export const CONDITION_OPERATORS = ['==', '!=', 'contains', '>=', '<=', '>', '<'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** Decimal numbers only: no hex, no empty text (Number('') is 0), no Infinity. */
const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The leftmost operator surrounded by spaces, or null for a bare value. */
export function splitExpression(expression: string): { left: string; op: ConditionOperator; right: string } | null {
  let best: { at: number; op: ConditionOperator } | null = null;
  for (const op of CONDITION_OPERATORS) {
    const at = expression.indexOf(` ${op} `);
    // Same position cannot hold two operators (` > ` vs ` >= ` differ in their next character).
    if (at >= 0 && (best === null || at < best.at)) best = { at, op };
  }
  if (best === null) return null;
  return { left: expression.slice(0, best.at), op: best.op, right: expression.slice(best.at + best.op.length + 2) };
}

/** One side after templates: trimmed, then one pair of matching surrounding quotes removed. */
function operand(raw: string, scope: TemplateScope): string {
  const s = resolveTemplateString(raw, scope).trim();
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0]) return s.slice(1, -1);
  return s;
}

function asNumber(s: string): number | null {
  const t = s.trim();
  if (!NUMERIC.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** A bare value is truthy when non-empty and not `false`, `0` or `null` (any case). */
export function isTruthyText(s: string): boolean {
  const t = s.toLowerCase();
  return t !== '' && t !== 'false' && t !== '0' && t !== 'null';
}

export function compare(left: string, op: ConditionOperator, right: string): boolean {
  switch (op) {
    case '==': return left === right;
    case '!=': return left !== right;
    case 'contains': return left.includes(right);
    default: {
      const a = asNumber(left);
      const b = asNumber(right);
      if (a === null || b === null) return false;
      if (op === '>') return a > b;
      if (op === '<') return a < b;
      if (op === '>=') return a >= b;
      return a <= b;
    }
  }
}

/**
 * Operators: `==`, `!=` (string equality), `contains` (substring), `>`, `<`, `>=`, `<=` (numeric;
 * false when either side is not a finite decimal number). Operators are lower case and must be
 * surrounded by spaces. Without an operator the resolved value's truthiness decides.
 */
export function evaluateCondition(expression: string, scope: TemplateScope): boolean {
  const parts = splitExpression(expression);
  if (parts === null) return isTruthyText(operand(expression, scope));
  return compare(operand(parts.left, scope), parts.op, operand(parts.right, scope));
}

/**
 * Whether a step runs: not when `skip_if` is truthy, and, if `run_if` is set, only when it is
 * truthy. A blank expression counts as absent (the spec parser drops blank ones).
 */
export function shouldRunStep(step: Pick<Step, 'skip_if' | 'run_if'>, scope: TemplateScope): boolean {
  if (step.skip_if !== undefined && step.skip_if.trim() !== '' && evaluateCondition(step.skip_if, scope)) return false;
  if (step.run_if !== undefined && step.run_if.trim() !== '' && !evaluateCondition(step.run_if, scope)) return false;
  return true;
}
