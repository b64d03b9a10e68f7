// The billing history is read from the audit log (each billable request's record carries its
// charge: api/pipeline/audit.ts), so the table of its own that 0050 made, one more insert per
// billable request, goes.
export const name = '0052_drop_billing_events';
export const up = `
DROP TABLE billing_events;
`;
