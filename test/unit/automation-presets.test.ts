// The ready-made automations (domain/automations/spec/presets.ts): the ten of spec §4.16, each a
// valid workflow today.
import { AUTOMATION_PRESETS } from '../../domain/automations/spec/presets.ts';
import { parseWorkflowSpec } from '../../domain/automations/spec/workflow-spec.ts';
import { normalizeCron } from '../../domain/automations/spec/cron.ts';
import { resolveTemplates } from '../../domain/automations/engine/templates.ts';

const IDS = [
  'rotate-api-keys-weekly', 'daily-dca-buy', 'health-check-alert', 'database-sync', 'weekly-content-draft',
  'competitor-watch', 'campaign-report', 'monitor-balance', 'lead-nurture-email', 'sentiment-alert',
];

test('exactly the ten presets of the spec, in order', () => {
  expect(AUTOMATION_PRESETS.map((p) => p.id)).toEqual(IDS);
});

describe.each(AUTOMATION_PRESETS.map((p) => [p.id, p] as const))('%s', (_id, preset) => {
  test('has the fields of a preset', () => {
    expect(preset.name.length).toBeGreaterThan(0);
    expect(preset.description.length).toBeGreaterThan(60);
    expect(preset.estimated_cost_per_run).toBeGreaterThan(0);
    expect(preset.default_cron).toBe(preset.cron_expr);
    expect(JSON.parse(JSON.stringify(preset))).toEqual(preset);
  });

  test('its workflow passes parseWorkflowSpec', () => {
    const steps = parseWorkflowSpec(preset.workflow_spec);
    expect(steps.length).toBeGreaterThan(0);
    expect(parseWorkflowSpec(preset.workflow_spec.steps)).toEqual(steps);
  });

  test('its trigger fits', () => {
    if (['lead-nurture-email', 'sentiment-alert'].includes(preset.id)) {
      expect(preset.trigger_type).toBe('webhook');
      expect(preset.cron_expr).toBeNull();
    } else {
      expect(preset.trigger_type).toBe('cron');
      expect(normalizeCron(preset.cron_expr!)).toBe(preset.cron_expr);
    }
  });

  test('its templates only name steps that come earlier', () => {
    const steps = parseWorkflowSpec(preset.workflow_spec);
    const known = new Set<string>();
    const visit = (list: typeof steps) => {
      for (const s of list) {
        const text = JSON.stringify([s.params, s.expression ?? '', s.skip_if ?? '', s.run_if ?? '']);
        for (const m of text.matchAll(/\{\{\s*steps\.([^.}\s]+)/g)) expect(known).toContain(m[1]);
        if (s.if_true) visit(s.if_true);
        if (s.if_false) visit(s.if_false);
        if (s.name) known.add(s.name);
      }
    };
    visit(steps);
    // Resolving against an empty run never throws.
    expect(() => resolveTemplates(steps.map((s) => s.params), { steps: {}, trigger: {} })).not.toThrow();
  });
});
