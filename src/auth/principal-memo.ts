// What a caller's rights come to (its standing in an organization, its authority over a project),
// remembered per principal object from one request to the next.
//
// A principal is built once per token-cache entry (tokens/service.ts) and shared by the requests
// that entry serves. Any write that could change such an answer (tokens, users, organizations,
// teams, memberships, project grants: db/changes.ts) drops every entry, so the next request gets a
// new principal, and answers kept on the old one are never given again: they last exactly as long
// as the cached token itself. A principal built for one request (nothing could be cached then)
// takes its answers with it.
import type { Principal } from './principal.ts';

export class PrincipalMemo<V> {
  readonly #of = new WeakMap<Principal, Map<string, Promise<V>>>();
  readonly #max: number;

  /** `max`: the most answers kept per principal; past it, they are all let go and gathered anew. */
  constructor(max: number) {
    this.#max = max;
  }

  get(principal: Principal, key: string): Promise<V> | undefined {
    return this.#of.get(principal)?.get(key);
  }

  /** Keeps `answer`, unless it fails: a failure (the database went away) is its request's alone. */
  set(principal: Principal, key: string, answer: Promise<V>): Promise<V> {
    let answers = this.#of.get(principal);
    if (!answers) this.#of.set(principal, (answers = new Map()));
    if (answers.size >= this.#max) answers.clear();
    answers.set(key, answer);
    answer.catch(() => answers.get(key) === answer && answers.delete(key));
    return answer;
  }
}
