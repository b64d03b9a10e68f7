// How the local SVM node (svm-node.ts) words things the way a real Solana node (agave) does:
// transaction errors as serde renders them ("BlockhashNotFound", {"InstructionError":[0,{"Custom":1}]}),
// the preflight failure message and data, accounts in base64 encoding, and the fee of a message
// (5000 lamports per signature plus the priority fee: compute-unit price × compute-unit limit,
// the limit being the one the message sets, else 3000 per builtin instruction and 200 000 per
// other, capped at 1.4 M, which is what LiteSVM charges).
import { ComputeBudgetProgram, PublicKey, type VersionedMessage } from '@solana/web3.js';
import type { FailedTransactionMetadata } from 'litesvm';

export const LAMPORTS_PER_SIGNATURE = 5000n;

const TX_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee', 'InvalidAccountForFee',
  'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee', 'InvalidAccountIndex', 'SignatureFailure',
  'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance', 'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion', 'InvalidWritableAccount', 'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData', 'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit', 'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded', 'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
];
const INSTRUCTION_ERRORS = (
  'GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds IncorrectProgramId ' +
  'MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ModifiedProgramId ExternalAccountLamportSpend ' +
  'ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified DuplicateAccountIndex ExecutableModified RentEpochModified ' +
  'NotEnoughAccountKeys AccountDataSizeChanged AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync ' +
  'InvalidError ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth MissingAccount ' +
  'ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded PrivilegeEscalation ' +
  'ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable IncorrectAuthority AccountNotRentExempt ' +
  'InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner MaxAccountsDataAllocationsExceeded MaxAccountsExceeded ' +
  'MaxInstructionTraceLengthExceeded BuiltinProgramsMustConsumeComputeUnits BorshIoError'
).split(' ');

/** Transaction errors raised before execution: the transaction never lands (no fee, no status). */
export const NOT_LANDED = new Set(['AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'InsufficientFundsForFee', 'InvalidAccountForFee',
  'AlreadyProcessed', 'BlockhashNotFound', 'MissingSignatureForFee', 'SignatureFailure', 'SanitizeFailure', 'UnsupportedVersion']);

/** A LiteSVM transaction error in the JSON shape a Solana node returns. */
export function errorJson(err: ReturnType<FailedTransactionMetadata['err']>): unknown {
  if (typeof err === 'number') return TX_ERRORS[err] ?? `TransactionError${err}`;
  const e = err as unknown as { constructor: { name: string }; index?: number; accountIndex?: number; err?: () => unknown };
  const kind = e.constructor.name.replace(/^TransactionError/, '');
  if (kind === 'InstructionError' && typeof e.err === 'function') {
    const ie = e.err() as number | { code?: number; msg?: string };
    const inner = typeof ie === 'number' ? INSTRUCTION_ERRORS[ie] ?? `InstructionError${ie}`
      : typeof ie.code === 'number' ? { Custom: ie.code } : { BorshIoError: ie.msg ?? '' };
    return { InstructionError: [e.index, inner] };
  }
  if (kind === 'DuplicateInstruction') return { DuplicateInstruction: e.index };
  return { [kind]: { account_index: e.accountIndex } };
}

/** The node's one-line wording of a transaction error (agave's Display, for the common ones). */
export function errorText(json: unknown): string {
  if (json === 'BlockhashNotFound') return 'Blockhash not found';
  if (json === 'AlreadyProcessed') return 'This transaction has already been processed';
  if (json === 'InsufficientFundsForFee') return 'Insufficient funds for fee';
  if (json === 'AccountNotFound') return 'Attempt to debit an account but found no record of a prior credit.';
  const ie = (json as { InstructionError?: [number, unknown] }).InstructionError;
  if (ie) {
    const [i, inner] = ie;
    const what = typeof inner === 'string' ? inner : (inner as { Custom?: number }).Custom !== undefined ? `custom program error: 0x${(inner as { Custom: number }).Custom.toString(16)}` : JSON.stringify(inner);
    return `Error processing Instruction ${i}: ${what}`;
  }
  return typeof json === 'string' ? json : JSON.stringify(json);
}

/** The JSON-RPC error of a failed preflight (code -32002), as agave sends it. */
export function preflightFailure(err: unknown, logs: string[] = [], unitsConsumed = 0n) {
  return {
    code: -32002,
    message: `Transaction simulation failed: ${errorText(err)}`,
    data: { accounts: null, err, innerInstructions: null, logs, replacementBlockhash: null, returnData: null, unitsConsumed },
  };
}

const BUILTINS = new Set([
  '11111111111111111111111111111111', 'ComputeBudget111111111111111111111111111111', 'Vote111111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111', 'Config1111111111111111111111111111111111111', 'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111', 'BPFLoaderUpgradeab1e11111111111111111111111', 'LoaderV411111111111111111111111111111111111',
  'AddressLookupTab1e1111111111111111111111111', 'Ed25519SigVerify111111111111111111111111111', 'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);
const COMPUTE_BUDGET = ComputeBudgetProgram.programId.toBase58();

/** The fee of `message`: base fee per signature plus its priority fee (see the header). */
export function feeOf(message: VersionedMessage): bigint {
  let limit: bigint | null = null;
  let price = 0n;
  let defaultLimit = 0n;
  const keys = message.staticAccountKeys;
  for (const ix of message.compiledInstructions) {
    const program = keys[ix.programIdIndex]?.toBase58() ?? new PublicKey(0).toBase58();
    const data = Buffer.from(ix.data);
    if (program === COMPUTE_BUDGET && data[0] === 2 && data.length >= 5) limit = BigInt(data.readUInt32LE(1));
    if (program === COMPUTE_BUDGET && data[0] === 3 && data.length >= 9) price = data.readBigUInt64LE(1);
    defaultLimit += BUILTINS.has(program) ? 3_000n : 200_000n;
  }
  const units = limit ?? (defaultLimit > 1_400_000n ? 1_400_000n : defaultLimit);
  const priority = (price * units + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(message.header.numRequiredSignatures) + priority;
}
