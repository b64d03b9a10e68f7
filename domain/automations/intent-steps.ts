// The automation steps that move value (spec §2.14): `submit_transaction` (alias sign_intent) and
// `swap`. Each acts as the automation's agent through the same commands as the agent's own API
// calls, so the Intents API switch, the agent's key and every guardrail apply unchanged; a step
// never holds a key. `dry_run` simulates instead of signing. A swap asks the exchange aggregator
// for a quote whose ready transaction is then submitted like any other (its router must pass the
// agent's tx_to_allowlist when one is set).
import type { EntityManager } from '@mikro-orm/postgresql';
import { decodeFunctionResult, encodeFunctionData, erc20Abi, getAddress, isAddress, parseEther, parseUnits, toHex, type Address, type Hex } from 'viem';
import type { ActionContext } from '../audit/action-context.ts';
import type { ChainRpc } from '../chains/chain-rpc.ts';
import type { TransactionCommands } from '../intents/transactions/transaction-commands.ts';
import type { SimulationCommands, StoredSimulation } from '../intents/transactions/simulation-commands.ts';
import type { TransactionRow } from '../intents/transactions/transaction-repository.ts';
import { NATIVE_TOKEN, SwapQuoteError, type SwapQuote, type SwapQuoteProvider } from '../swaps/quote-provider.ts';
import { resolveEvmChain } from '../intents/intents-access.ts';
import { loadAgent } from '../agents/agent-repository.ts';
import { senderAddress } from '../intents/transactions/sender-address.ts';
import { chainProblem } from '../intents/transactions/chain-problems.ts';
import { ChainRpcError } from '../chains/chain-rpc.ts';
import { authorizeIntents } from '../intents/intents-access.ts';
import { callerOf } from '../auth/principal.ts';

type Params = Record<string, unknown>;

export type IntentStepDeps = {
  db: () => EntityManager; transactions: TransactionCommands; simulations: SimulationCommands; rpc: ChainRpc; swaps: SwapQuoteProvider;
};

/** Enough for decimals() or symbol() of any ERC-20. */
const TOKEN_READ_GAS = 200_000n;

/** Stablecoins an `amount_usd` can be sold in, one token per dollar (no price oracle is consulted). */
const USD_STABLECOINS = new Set(['USDC', 'USDT', 'DAI', 'USDC.E', 'USDBC', 'PYUSD']);

/** A step's refusal, with a message for the run record. */
export class IntentStepError extends Error {}

export class IntentSteps {
  private readonly d: IntentStepDeps;

  constructor(deps: IntentStepDeps) {
    this.d = deps;
  }

  async submitTransaction(ctx: ActionContext, p: Params): Promise<unknown> {
    const req = {
      chain: String(p.chain), to: getAddress(String(p.to)), valueWei: amountOf(String(p.value)),
      ...(typeof p.data === 'string' ? { data: p.data as Hex } : {}),
      ...(typeof p.gas_limit === 'number' ? { gasLimit: BigInt(p.gas_limit) } : {}),
      simulateFirst: p.simulate_first === true,
    };
    if (p.dry_run === true) return this.dryRun(ctx, req.chain, req.to, req.valueWei, req.data);
    const agentId = callerOf(ctx).id;
    const { tx } = await this.d.transactions.submit(ctx, agentId, req, null, p.sign_only === true ? 'sign_only' : 'submit');
    return transactionOutput(tx, p.sign_only === true);
  }

  async swap(ctx: ActionContext, p: Params): Promise<unknown> {
    const em = this.d.db();
    const principal = callerOf(ctx);
    const chain = await resolveEvmChain(em, String(p.chain));
    // Refused before the aggregator hears of the agent: no quote for an agent that may not transact.
    const agent = await loadAgent(em, principal.orgId, principal.id);
    await authorizeIntents(() => em, principal, agent);
    const taker = await senderAddress(em, agent, undefined);
    const sellToken = await this.token(String(p.token_in), chain.nativeCurrency, 'token_in');
    const buyToken = await this.token(String(p.token_out), chain.nativeCurrency, 'token_out');
    const sellAmount = await this.sellAmount(chain.chainId, sellToken, p);
    let quote: SwapQuote;
    try {
      quote = await this.d.swaps.quote({
        chainId: chain.chainId, sellToken, buyToken, sellAmount, taker,
        ...(typeof p.slippage_bps === 'number' ? { slippageBps: p.slippage_bps } : {}),
      });
    } catch (e) {
      if (e instanceof SwapQuoteError) throw new IntentStepError(`the exchange aggregator gave no quote (${e.kind}): ${e.message}`);
      throw e;
    }
    const quoted = quoteOutput(quote);
    if (p.dry_run === true) return { ...quoted, ...(await this.dryRun(ctx, chain.name, quote.tx.to, quote.tx.value, quote.tx.data)) };
    if (quote.allowance) {
      throw new IntentStepError(`selling ${sellToken} needs an allowance first: approve ${quote.allowance.spender} for at least ${quote.sellAmount} (a submit_transaction step calling approve), then swap`);
    }
    const { tx } = await this.d.transactions.submit(ctx, principal.id, {
      chain: chain.name, to: quote.tx.to, valueWei: quote.tx.value, data: quote.tx.data,
      ...(quote.tx.gas !== null ? { gasLimit: quote.tx.gas } : {}), simulateFirst: p.simulate_first !== false,
    }, null, 'submit');
    return { ...quoted, ...transactionOutput(tx, false) };
  }

  /** Simulates as the agent (guardrails are not consumed: nothing is signed). */
  private async dryRun(ctx: ActionContext, chain: string, to: Address, valueWei: bigint, data: Hex | undefined): Promise<Record<string, unknown>> {
    const sim = await this.d.simulations.simulate(ctx, callerOf(ctx).id, { chain, to, valueWei, ...(data ? { data } : {}) });
    return { dry_run: true, simulation: simulationOutput(sim) };
  }

  /** The chain's native coin by symbol (or "native", "ETH"), or a token contract by address. */
  private async token(raw: string, nativeSymbol: string, field: string): Promise<Address> {
    const t = raw.trim();
    if ([nativeSymbol.toLowerCase(), 'native', 'eth'].includes(t.toLowerCase()) || t.toLowerCase() === NATIVE_TOKEN.toLowerCase()) return NATIVE_TOKEN;
    if (!isAddress(t)) throw new IntentStepError(`${field}: must be ${nativeSymbol} (the chain's coin) or a token contract address`);
    return getAddress(t);
  }

  /** sell_amount in the token's units (decimals read from the contract), or amount_usd of a USD stablecoin. */
  private async sellAmount(chainId: number, token: Address, p: Params): Promise<bigint> {
    const native = token === NATIVE_TOKEN;
    const decimals = native ? 18 : await this.erc20<number>(chainId, token, 'decimals');
    if (typeof p.sell_amount === 'string') return parseUnits(p.sell_amount, decimals);
    const symbol = native ? 'native' : (await this.erc20<string>(chainId, token, 'symbol')).toUpperCase();
    if (!USD_STABLECOINS.has(symbol)) {
      throw new IntentStepError(`amount_usd: token_in must be a USD stablecoin (${[...USD_STABLECOINS].join(', ')}) to sell a dollar amount; give sell_amount instead`);
    }
    return parseUnits(String(p.amount_usd), decimals);
  }

  private async erc20<T>(chainId: number, token: Address, fn: 'decimals' | 'symbol'): Promise<T> {
    const notToken = () => new IntentStepError(`${token} does not answer ${fn}() like an ERC-20 token`);
    let out: Hex;
    try {
      // A gas limit of its own: nodes default calls to their block gas limit, which some refuse (EIP-7825's cap).
      out = await this.d.rpc.request<Hex>(chainId, 'eth_call', [{ to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: fn }), gas: toHex(TOKEN_READ_GAS) }, 'latest']);
    } catch (e) {
      if (e instanceof ChainRpcError) throw notToken();
      throw chainProblem(e);
    }
    try {
      return decodeFunctionResult({ abi: erc20Abi, functionName: fn, data: out }) as T;
    } catch {
      throw notToken();
    }
  }
}

/** ETH as decimal text, or 0x-hex wei. */
function amountOf(v: string): bigint {
  const t = v.trim();
  if (/^0x[0-9a-fA-F]{1,64}$/.test(t)) return BigInt(t);
  if (/^(0|[1-9][0-9]{0,59})(\.[0-9]{1,18})?$/.test(t)) return parseEther(t);
  throw new IntentStepError('value: must be a decimal amount in the native unit (e.g. "0.5") or 0x-hex wei');
}

function transactionOutput(tx: TransactionRow, withSignedTx: boolean): Record<string, unknown> {
  return {
    transaction_id: tx.id, status: tx.status, tx_hash: tx.tx_hash, chain: tx.chain, chain_id: tx.chain_id, from: tx.from_address,
    to: tx.to_address, value_wei: tx.value_wei.toString(), nonce: tx.nonce, ...(withSignedTx ? { signed_tx: tx.signed_tx } : {}),
  };
}

function quoteOutput(q: SwapQuote): Record<string, unknown> {
  return {
    quote: {
      source: q.source, sell_token: q.sellToken, buy_token: q.buyToken, sell_amount: q.sellAmount.toString(), buy_amount: q.buyAmount.toString(),
      min_buy_amount: q.minBuyAmount.toString(), to: q.tx.to, value_wei: q.tx.value.toString(), zid: q.zid,
    },
  };
}

function simulationOutput(s: StoredSimulation): Record<string, unknown> {
  return {
    simulation_id: s.id, status: s.status, gas_used: s.gasUsed === null ? null : s.gasUsed.toString(), revert_reason: s.revertReason,
    error: s.error, balance_changes: s.balanceChanges,
  };
}
