// A refusal raised from inside one statement (issue 32 hot path): a multi-table conditional write
// as writable CTEs (family-record-repository.ts) cannot undo an earlier CTE's write when a later
// cap refuses; raising an error from the statement's final SELECT aborts it whole, so either all of
// it is written or nothing. SQLSTATE P0001 with the reason as the message.
export const name = '0042_statement_refusals';
export const up = `
CREATE FUNCTION refuse_statement(reason text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'statement refused: ' || reason;
END $$;
`;
