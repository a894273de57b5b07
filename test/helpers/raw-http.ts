/**
 * HTTP/1.1 over a raw socket, for what fetch cannot do: send headers and part
 * of a body, stall, and watch when the server answers and whether it closes.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection within `closeWaitMs` after answering. */
  closed: boolean;
}

export interface RawExchange {
  socket: Socket;
  /** Resolves with the first response (whatever was sent so far). */
  response: Promise<RawResponse>;
}

/**
 * Opens a connection to `url`, sends `head` (request line and headers, without the blank line) and `body`,
 * and never sends more. `closeWaitMs`: how long to watch for the server closing after it answered.
 */
export function rawExchange(url: string, head: string, body: string | Buffer = '', closeWaitMs = 1_000): RawExchange {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  let data = Buffer.alloc(0);
  let closed = false;
  socket.on('close', () => {
    closed = true;
  });
  const response = new Promise<RawResponse>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no response within 30 s; got ${data.toString('latin1').slice(0, 200)}`));
    }, 30_000);
    const tryParse = (): RawResponse | null => {
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return null;
      const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (data.length < end + 4 + length) return null;
      return {
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: data.subarray(end + 4, end + 4 + length).toString('utf8'),
        closed: false,
      };
    };
    const onData = (chunk: Buffer): void => {
      data = Buffer.concat([data, chunk]);
      const parsed = tryParse();
      if (!parsed) return;
      clearTimeout(timer);
      socket.off('data', onData);
      const settle = (): void => resolve({ ...parsed, closed });
      if (closed) return settle();
      const wait = setTimeout(settle, closeWaitMs);
      socket.once('close', () => {
        clearTimeout(wait);
        settle();
      });
    };
    socket.on('data', onData);
    socket.once('close', () => {
      if (tryParse() === null) {
        clearTimeout(timer);
        reject(new Error(`connection closed without a response: ${data.toString('latin1').slice(0, 200)}`));
      }
    });
  });
  socket.once('connect', () => {
    socket.write(`${head}\r\n\r\n`);
    if (body.length > 0) socket.write(body);
  });
  return { socket, response };
}
