/**
 * The lane ticket of the call being worked on: the paid call (src/calls/charged-call.ts) runs its work
 * inside `withLaneTicket`, and the pool's solves made from that work take their place in the lanes
 * under that ticket (its key, its reservation) without every pipeline passing it along. A solve made
 * outside a call (tests, benches) gets a ticket of its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LaneTicket } from './lanes.js';

const scope = new AsyncLocalStorage<LaneTicket>();

export function withLaneTicket<T>(ticket: LaneTicket, work: () => T): T {
  return scope.run(ticket, work);
}

export function currentLaneTicket(): LaneTicket | undefined {
  return scope.getStore();
}
