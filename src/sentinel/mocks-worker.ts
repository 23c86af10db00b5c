// The worker side of mockBundleOffThread (mocks.ts): a large plan's mocks are built here, so the
// parse and the printing never hold up the process's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { mockBundle } from './mocks.ts';

const { planJson, run } = workerData as { planJson: string; run: Parameters<typeof mockBundle>[1] };
parentPort!.postMessage(mockBundle(planJson, run));
