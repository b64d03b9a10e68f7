// IP rules say which callers they bind (reference CreateIpRuleRequest `applies_to`): every
// principal, only humans, or only agents. Existing rules bound everyone, so they stay 'all'.
export const name = '0006_ip_rule_applies_to';

export const up = `
ALTER TABLE ip_rules
  ADD COLUMN applies_to text NOT NULL DEFAULT 'all' CHECK (applies_to IN ('all','users','agents'));
`;
