export interface Point {
  latitude: number;
  longitude: number;
}

/** Integer seconds and metres, indexed [from][to]; the diagonal is 0. */
export interface TravelMatrix {
  durationsS: number[][];
  distancesM: number[][];
}

export interface MatrixOptions {
  avoidTolls: boolean;
  signal?: AbortSignal;
}

/** One leg of a routed line, in whole metres and seconds. */
export interface RouteLeg {
  distanceM: number;
  durationS: number;
}

/** The line a vehicle drives through `points`, in order. */
export interface RouteLine {
  /** The drawn line, from the first point to the last. */
  coordinates: Point[];
  /** One per pair of consecutive points, from the engine's road network; absent for straight segments. */
  legs?: RouteLeg[];
  /** The provider that drew it (a chain names the one that answered). */
  provider: string;
}

export interface RouteOptions extends MatrixOptions {
  /** A chain starts with this provider (e.g. the one that answered the call's matrix), then falls back as usual. */
  provider?: string;
}

export interface RoutingProvider {
  readonly name: string;
  matrix(points: Point[], opts: MatrixOptions): Promise<TravelMatrix>;
  /** The line through `points` in order: the road network's (OSRM's route service), or straight segments. */
  route(points: Point[], opts: RouteOptions): Promise<RouteLine>;
}

/** A matrix plus the name of the provider that computed it (returned by RoutingChain). */
export interface RoutedMatrix extends TravelMatrix {
  provider: string;
}

export class RoutingError extends Error {
  /** Provider that failed ('osrm', 'haversine', or 'chain' when every provider of a chain failed). */
  readonly provider: string;
  /** HTTP status when the routing server answered with an error status. */
  readonly status?: number;
  /** OSRM response `code` (e.g. "TooBig", "NoTable", "InvalidQuery") when the server gave one. */
  readonly code?: string;
  /** True when the request was abandoned because of the client-side timeout. */
  readonly timedOut: boolean;
  /** For a chain: the error of each provider, in the order they were tried. */
  readonly errors: Error[];

  constructor(
    provider: string,
    message: string,
    opts: { status?: number; code?: string; timedOut?: boolean; cause?: unknown; errors?: Error[] } = {},
  ) {
    super(`${provider}: ${message}`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'RoutingError';
    this.provider = provider;
    this.status = opts.status;
    this.code = opts.code;
    this.timedOut = opts.timedOut ?? false;
    this.errors = opts.errors ?? [];
  }
}
