/**
 * The part of a pino logger the geo modules use. Pass the app's pino logger (or a child of it);
 * a pino `Logger` satisfies this interface.
 */
export interface GeoLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}
