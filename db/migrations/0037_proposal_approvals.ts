// A Safe treasury proposal made by an agent waits in the approval queue (issue 31 §4): the
// approval that must be approved before a human can execute it. Null for a human's proposal.
export const name = '0037_proposal_approvals';
export const up = `
ALTER TABLE treasury_proposals ADD COLUMN approval_id uuid;
`;
