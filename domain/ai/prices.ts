// What a generation costs: a price per model in US cents per million input and output tokens.
// Built-in list prices for common models (as published when this was written; an operator
// corrects or extends them with AI_PRICES). A model found nowhere costs 0.
import type { TokenUsage } from './model-provider.ts';

export type ModelPrice = { input: number; output: number };
export type PriceTable = ReadonlyMap<string, ModelPrice>;

const p = (input: number, output: number): ModelPrice => ({ input, output });

/** Cents per million tokens. Dated model names match their family by prefix (see priceOf). */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-5': p(125, 1000), 'gpt-5-mini': p(25, 200), 'gpt-5-nano': p(5, 40),
  'gpt-4.1': p(200, 800), 'gpt-4.1-mini': p(40, 160), 'gpt-4.1-nano': p(10, 40),
  'gpt-4o': p(250, 1000), 'gpt-4o-mini': p(15, 60),
  'o3': p(200, 800), 'o3-mini': p(110, 440), 'o4-mini': p(110, 440),
  'gpt-3.5-turbo': p(50, 150),
  'claude-opus-4-5': p(500, 2500), 'claude-opus-4-1': p(1500, 7500), 'claude-opus-4': p(1500, 7500),
  'claude-sonnet-4-5': p(300, 1500), 'claude-sonnet-4': p(300, 1500),
  'claude-3-7-sonnet': p(300, 1500), 'claude-3-5-sonnet': p(300, 1500),
  'claude-haiku-4-5': p(100, 500), 'claude-3-5-haiku': p(80, 400), 'claude-3-haiku': p(25, 125),
};

/** The built-in table with `overrides` on top (names compared in lower case). */
export function priceTable(overrides: ReadonlyMap<string, ModelPrice> = new Map()): PriceTable {
  const table = new Map<string, ModelPrice>(Object.entries(DEFAULT_PRICES));
  for (const [model, price] of overrides) table.set(model.toLowerCase(), price);
  return table;
}

/**
 * AI_PRICES: `{"<model>": {"input": <cents>, "output": <cents>}, …}`, cents per million tokens.
 * Problems are reported through `issue`, one per entry.
 */
export function parsePriceOverrides(json: string, issue: (message: string) => void): Map<string, ModelPrice> {
  const out = new Map<string, ModelPrice>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    issue('must be a JSON object such as {"my-model": {"input": 15, "output": 60}} (US cents per million tokens)');
    return out;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    issue('must be a JSON object of model names to {"input": <cents>, "output": <cents>}');
    return out;
  }
  for (const [model, v] of Object.entries(parsed)) {
    const name = model.trim().toLowerCase();
    const price = v as { input?: unknown; output?: unknown } | null;
    const ok = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
    if (name === '' || typeof price !== 'object' || price === null || !ok(price.input) || !ok(price.output)) {
      issue(`${JSON.stringify(model.slice(0, 100))}: must be {"input": <cents>, "output": <cents>} with non-negative numbers`);
      continue;
    }
    out.set(name, { input: price.input as number, output: price.output as number });
  }
  return out;
}

/**
 * The price of `model`: its own entry, else the longest entry it extends at a `-`, `:`, `@` or `/`
 * (`claude-3-5-haiku-20241022` → `claude-3-5-haiku`; `gpt-4o-mini` never falls to `gpt-4o`'s
 * price when it has its own, and `gpt-4o` never matches `gpt-4`). null when none fits.
 */
export function priceOf(table: PriceTable, model: string): ModelPrice | null {
  const name = model.trim().toLowerCase();
  const exact = table.get(name);
  if (exact) return exact;
  let best: string | null = null;
  for (const key of table.keys()) {
    if (name.length > key.length && name.startsWith(key) && '-:@/'.includes(name[key.length]!) && (best === null || key.length > best.length)) best = key;
  }
  return best === null ? null : table.get(best)!;
}

/** Cents for `usage` at `price` (0 without a price), to a millionth of a cent. */
export function costCents(price: ModelPrice | null, usage: TokenUsage): number {
  if (!price) return 0;
  const cents = (usage.input_tokens * price.input + usage.output_tokens * price.output) / 1_000_000;
  return Math.round(cents * 1_000_000) / 1_000_000;
}
