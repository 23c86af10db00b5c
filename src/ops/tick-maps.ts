// Keeps one of Node's `process.nextTick` objects alive for as long as the process runs. Imported
// first by main.ts, so that it runs before anything else Hangar loads.
//
// Why: Node builds each tick object with one object literal whose keys are symbols
// (node:internal/process/task_queues). V8 remembers, for each key of that literal, the one
// hidden class (map) the object had before the key was added, and a second map makes that
// feedback megamorphic for good: V8 then optimizes `nextTick` into a runtime call per key,
// about 0.9 µs a tick instead of 0.1 µs. The maps are held only weakly, so a full garbage
// collection that runs while no tick is queued (the memory reducer does one when a server goes
// quiet, start-up often does one) frees them, and the next tick builds new ones. Every request
// queues about six ticks; a heartbeat cost about a fifth more CPU once it had happened, in a
// lottery that one process won and the next lost. One tick object kept alive keeps its map, and
// the maps it was built through, alive, so the feedback never sees a second map.
//
// test/tick-maps.test.ts checks both halves on the Node version in package.json: without this
// module the feedback goes megamorphic after a full collection, with it it does not. When a Node
// upgrade fails the first half, V8 or Node no longer behaves this way and this module can go.
import { executionAsyncResource } from 'node:async_hooks';

/** Holds the tick object; nothing reads it, it only has to stay reachable. */
const kept: object[] = [];

// Queued, the tick object is already alive; inside its callback it is the resource being run.
process.nextTick(() => {
  kept.push(executionAsyncResource());
});
