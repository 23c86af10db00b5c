import { toOne } from '../jsonapi/relationships.ts';
import type { PolicyCheckView } from './service.ts';

export function policyCheckResource({ check, canOverride }: PolicyCheckView) {
  const r = check.result;
  return {
    id: check.id,
    type: 'policy-checks',
    attributes: {
      status: check.status,
      scope: check.scope,
      'status-timestamps': check.statusTimestamps,
      result: r && {
        result: r.result,
        passed: r.passed,
        'total-failed': r.totalFailed,
        'hard-failed': r.hardFailed,
        'soft-failed': r.softFailed,
        'advisory-failed': r.advisoryFailed,
        duration: r.durationMs,
        // Per policy: its set, level and outcome (never a parameter value).
        sentinel: {
          'schema-version': '1.0.0',
          data: Object.fromEntries(
            r.policies.map((p) => [
              `${p.policySetName}/${p.policy}`,
              { 'policy-set-id': p.policySetId, 'enforcement-level': p.enforcementLevel, result: p.result, error: p.error },
            ]),
          ),
        },
      },
      actions: { 'is-overridable': check.status === 'soft_failed' },
      permissions: { 'can-override': canOverride },
    },
    relationships: { run: toOne('runs', check.runId) },
    links: { self: `/api/v2/policy-checks/${check.id}`, output: `/api/v2/policy-checks/${check.id}/output` },
  };
}
