// Treasury wallets (spec §4.7, §5 rule 8; reference /v1/treasury/wallets*): a human's own wallets,
// human-only (agents get 403 on every route: auth 'user'), Pro plan or higher (spec §1). `chain`
// in the path is a chain family (ethereum, bitcoin, solana) or a network's name or chain_id: every
// EVM name is the one `ethereum` wallet, every Bitcoin network (bitcoin-regtest …) the `bitcoin`
// one, every Solana network the `solana` one; balance and send act on the network named. The rules are the
// domain's (domain/treasury/wallets/).
import { route } from '../../route.ts';
import { idempotencyKeyOf } from '../../input/idempotency-key.ts';
import { MAX_IDEMPOTENCY_KEY } from '../../../domain/treasury/wallets/send-limits.ts';
import {
  TreasuryWalletBalanceSchema, TreasuryWalletExportSchema, TreasuryWalletListSchema, TreasuryWalletSchema, TreasuryWalletSendSchema,
  presentTreasuryTransfer, presentTreasuryWallet, presentTreasuryWalletBalance, presentTreasuryWalletExport, presentTreasuryWalletList,
} from '../../presenters/treasury-wallets.ts';
import { balanceQuery, exportQuery, generateWalletsBody, listWalletsQuery, sendBody, walletChainParams } from './wallets-schema.ts';

const TAG = 'Treasury Wallets';
const WHO = 'An agent (treasury wallets are human-only), or a plan without treasury wallets (plan_feature_unavailable: Pro or higher)';
const CHAIN_400 = 'chain: unknown (not a chain family, nor an EVM chain this service knows)';
const confirm = (ctx: { get(h: string): string }) => ctx.get('x-auth-confirm') || undefined;

export const treasuryWalletRoutes = [
  route({
    method: 'POST', path: '/v1/treasury/wallets/generate', tag: TAG, auth: 'user',
    summary: "Generate the caller's wallets for the chains named, or for every chain family supported (ethereum, bitcoin, solana, xrp); a family with an active wallet keeps it",
    body: generateWalletsBody,
    success: { status: 201, description: "The caller's active wallets of the families asked, new and kept", schema: TreasuryWalletListSchema },
    errors: { 400: CHAIN_400, 403: WHO },
    handler: async ({ body, action, services: s }) => presentTreasuryWalletList(await s.treasuryWallets.generate(action, body.chains)),
  }),
  route({
    method: 'GET', path: '/v1/treasury/wallets', tag: TAG, auth: 'user',
    summary: "The caller's active wallets (include_inactive=true: also rotated and deactivated ones, their history)",
    query: listWalletsQuery,
    success: { status: 200, description: 'The wallets, newest first', schema: TreasuryWalletListSchema },
    errors: { 403: WHO },
    handler: async ({ query, action, services: s }) => presentTreasuryWalletList(await s.treasuryWallets.list(action, query.include_inactive)),
  }),
  route({
    method: 'GET', path: '/v1/treasury/wallets/:chain', tag: TAG, auth: 'user',
    summary: "The caller's active wallet for a chain (any EVM network name or chain_id names the ethereum wallet; bitcoin-regtest the bitcoin one …)",
    params: walletChainParams,
    success: { status: 200, description: 'The wallet', schema: TreasuryWalletSchema },
    errors: { 400: CHAIN_400, 403: WHO, 404: 'No active wallet for this chain' },
    handler: async ({ params, action, services: s }) => presentTreasuryWallet(await s.treasuryWallets.get(action, params.chain)),
  }),
  route({
    method: 'GET', path: '/v1/treasury/wallets/:chain/balance', tag: TAG, auth: 'user',
    summary: "The active wallet's native balance on the network named (wei, sat or lamport), and on EVM chains ERC-20 balances of `tokens` (comma list of contracts)",
    params: walletChainParams, query: balanceQuery,
    success: { status: 200, description: 'The balances', schema: TreasuryWalletBalanceSchema },
    errors: {
      400: `${CHAIN_400}; or a token that is not an address, or tokens on a Bitcoin or Solana network`, 403: WHO, 404: 'No active wallet for this chain',
      503: "The chain's node cannot be reached, or the network has no node configured",
    },
    handler: async ({ params, query, action, services: s }) => presentTreasuryWalletBalance(await s.treasuryWallets.balance(action, params.chain, query.tokens)),
  }),
  route({
    method: 'POST', path: '/v1/treasury/wallets/:chain/send', tag: TAG, auth: 'user',
    summary: 'Send from the active wallet on the network named, value_wei in the smallest unit (wei, sat, lamport) (header X-Auth-Confirm: the password or a rat_ token for treasury_wallet.send; or X-Passkey-Token from tx-assert for this transfer); at most 10,000 ETH, 1,000 BTC or 100,000 SOL; broadcast durably; Idempotency-Key replays',
    params: walletChainParams, body: sendBody,
    success: { status: 200, description: 'Signed and stored; its broadcast runs in the background. A repeated Idempotency-Key answers with the stored transfer and sends nothing', schema: TreasuryWalletSendSchema },
    errors: {
      400: `${CHAIN_400}; to not an address of the network; value_wei above the sanity cap; a field of another chain (data, gas_limit off EVM); gasless; X-Passkey-Tx-Digest not this transfer's digest`,
      401: 'Missing or wrong X-Auth-Confirm (password or rat_ token) or X-Passkey-Token (used, expired)',
      403: `${WHO}; an account without a password and no token; a token for another purpose or another transfer`,
      404: 'No active wallet for this chain',
      409: 'The wallet was rotated or deactivated meanwhile; a request with this Idempotency-Key is being created',
      422: 'Insufficient funds (coins, lamports), or the node refused to estimate the transaction (nothing signed); the Idempotency-Key was used for another transfer',
      429: 'Too many wrong passwords for this account: wait Retry-After seconds',
      503: "The chain's node cannot be reached",
    },
    handler: async ({ ctx, params, body, action, services: s }) =>
      presentTreasuryTransfer((await s.treasuryTransfers.send(action, params.chain, body, {
        confirm: confirm(ctx), passkeyToken: ctx.get('x-passkey-token') || undefined, passkeyTxDigest: ctx.get('x-passkey-tx-digest') || undefined,
      }, idempotencyKeyOf(ctx, MAX_IDEMPOTENCY_KEY))).transfer),
  }),
  route({
    method: 'POST', path: '/v1/treasury/wallets/:chain/export', tag: TAG, auth: 'user',
    summary: "Export the active wallet's private key (0x-hex, and as the family's wallets import it: hex, WIF, base58 keypair), or with wallet_id a retired wallet's (header X-Auth-Confirm: the password or a rat_ token for treasury_wallet.export); audited, rate-limited",
    params: walletChainParams, query: exportQuery,
    success: { status: 200, description: 'The private key, shown once', schema: TreasuryWalletExportSchema },
    errors: {
      400: CHAIN_400,
      401: 'Missing or wrong X-Auth-Confirm',
      403: `${WHO}; an account without a password and no rat_ token`,
      404: 'No active wallet for this chain, or no such wallet of the caller',
      429: 'Too many exports (10 an hour per user), or too many wrong passwords: wait Retry-After seconds',
    },
    handler: async ({ ctx, params, query, action, services: s }) =>
      presentTreasuryWalletExport(await s.treasuryWallets.export(action, params.chain, confirm(ctx), query.wallet_id)),
  }),
  route({
    method: 'POST', path: '/v1/treasury/wallets/:chain/rotate', tag: TAG, auth: 'user',
    summary: 'Rotate: a new key pair (new address) replaces the active wallet; the old one stays listed (include_inactive) and exportable but never sends again',
    params: walletChainParams,
    success: { status: 200, description: 'The new wallet', schema: TreasuryWalletSchema },
    errors: { 400: CHAIN_400, 403: WHO, 404: 'No active wallet for this chain', 409: 'The wallet changed during the rotation' },
    handler: async ({ params, action, services: s }) => presentTreasuryWallet(await s.treasuryWallets.rotate(action, params.chain)),
  }),
  route({
    method: 'DELETE', path: '/v1/treasury/wallets/:chain', tag: TAG, auth: 'user',
    summary: 'Deactivate the active wallet for a chain: it never sends again; its record and sealed key stay (history, export)',
    params: walletChainParams,
    success: { status: 204, description: 'Deactivated' },
    errors: { 400: CHAIN_400, 403: WHO, 404: 'No active wallet for this chain' },
    handler: async ({ params, action, services: s }) => s.treasuryWallets.deactivate(action, params.chain),
  }),
];
