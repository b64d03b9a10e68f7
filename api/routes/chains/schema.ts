// Input schemas of the chain routes (public and admin). Shapes and lengths are checked here; the
// rules of names, chain ids and endpoint URLs are the domain's (domain/chains/chain-fields.ts),
// which names the offending field in a 400.
import { z } from 'zod';
import { CHAIN_NAME_MAX, URL_MAX } from '../../../domain/chains/chain-fields.ts';

/** `{identifier}`: an internal id, a chain_id (decimal or 0x-hex) or a name; anything else is not found. */
export const chainParams = z.object({ identifier: z.string().max(100) });
/** The admin routes' `{chain_id}` accepts the same forms. */
export const adminChainParams = z.object({ chain_id: z.string().max(100) });

/** Names are lower-case; other spellings are folded rather than refused. */
const name = z.string().trim().min(1).max(CHAIN_NAME_MAX).transform((n) => n.toLowerCase());
const chainId = z.number().int().positive();
const displayName = z.string().trim().min(1).max(100);
/** null clears an endpoint. */
const endpoint = z.string().trim().min(1).max(URL_MAX).nullable();
const nativeCurrency = z.string().trim().min(1).max(16).regex(/^[A-Za-z0-9.]+$/, { message: 'must be a currency symbol such as ETH' });

export const createChainBody = z.object({
  name,
  chain_id: chainId,
  display_name: displayName.optional(),
  rpc_url: endpoint.optional(),
  ws_url: endpoint.optional(),
  explorer_url: endpoint.optional(),
  native_currency: nativeCurrency.optional(),
  is_testnet: z.boolean().optional(),
  is_enabled: z.boolean().optional(),
});

// The same fields, all optional; name and chain_id are accepted only unchanged (a client may send
// back the whole chain it read).
export const updateChainBody = createChainBody.partial().refine((b) => Object.values(b).some((v) => v !== undefined), {
  message: 'give at least one of display_name, rpc_url, ws_url, explorer_url, native_currency, is_testnet, is_enabled',
});
