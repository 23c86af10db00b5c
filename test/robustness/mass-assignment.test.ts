// Mass assignment, wider than the main suite's pass (test/mass-assignment.test.ts): every column
// name of every table, in snake and kebab case, in every place a body has room for it
// (attributes, beside them in `data`, as relationships naming another user, beside `data`), with
// values of every JSON type, sent by every caller the access matrix allows on every POST and
// PATCH route. Nothing may change, nothing may answer 5xx, and the status stays the control's.
import { suite } from '../helpers/harness.ts';
import { massAssignmentCases } from '../helpers/mass-assignment.ts';

suite('robustness: every column name everywhere in every POST and PATCH body, as every caller', (ctx) => {
  massAssignmentCases(ctx, { callers: 'every', values: ['telling', 'confused'], positions: ['attributes', 'data', 'relationships', 'document'] });
});
