// Webhook deliveries run in batches (one Temporal workflow per batch, not per delivery): the
// Temporal dev server completes some 30 workflows a second on a small machine, far below the
// event rates the service must keep up with. A delivery's run now belongs to a batch, and the
// batch workflow's round N tries the deliveries with fewer than N attempts in this run.
export const name = '0011_webhook_delivery_batches';

export const up = `
ALTER TABLE webhook_deliveries ADD COLUMN batch_id uuid;
ALTER TABLE webhook_deliveries ADD COLUMN run_attempts integer NOT NULL DEFAULT 0;
CREATE INDEX webhook_deliveries_batch_idx ON webhook_deliveries (batch_id) WHERE status = 'pending';
-- workflow_started_at now says the batch's workflow has started (webhook-delivery-batch:<batch_id>).
`;
