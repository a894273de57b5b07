// Entry point of the console page: wires the sections together.
import { initBuy } from './buy.js';
import { initMyKey } from './my-key.js';
import { initPlans } from './plans.js';
import { initPlayground } from './playground.js';
import { initTestKey } from './test-key.js';

const myKey = initMyKey();
initTestKey({ onKeyCreated: () => myKey.refresh() });
initPlayground({ onResult: () => myKey.refresh({ quiet: true }) });
initPlans({ onResult: () => myKey.refresh({ quiet: true }) });
initBuy();
