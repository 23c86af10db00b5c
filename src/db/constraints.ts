// The schema is the last word on invariants (unique names, existing parents). When a write runs
// into one, the client made a mistake or lost a race: answer with the error the caller names.
import { isForeignKeyViolation, isUniqueViolation } from './index.ts';

export interface ViolationAnswers {
  /** A unique index refused the write (a name already taken, say). */
  unique?: () => Error;
  /** A foreign key refused it (the parent was deleted a moment ago, say). */
  foreignKey?: () => Error;
}

/** `write`'s result; a constraint failure named in `answers` becomes that error, any other passes through. */
export async function guarded<T>(write: Promise<T>, answers: ViolationAnswers): Promise<T> {
  try {
    return await write;
  } catch (e) {
    if (answers.unique && isUniqueViolation(e)) throw answers.unique();
    if (answers.foreignKey && isForeignKeyViolation(e)) throw answers.foreignKey();
    throw e;
  }
}
