/**
 * Delivers one e-mail: through SMTP when SMTP_URL is set, else as an .eml file
 * in OUTBOX_DIR (the embedded default), logged by path. Bodies are never logged.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { MailConfig } from '../config.js';
import { writePrivateFile } from '../private-files.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface SentMail {
  messageId: string;
  /** File mode: where the .eml was written. */
  file?: string;
}

export interface MailSender {
  readonly mode: 'smtp' | 'file';
  send(message: MailMessage): Promise<SentMail>;
  close(): void;
}

/** The part of a pino logger the mail code uses (the admin CLI passes its own). */
export interface MailLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface MailSenderOptions {
  /** SMTP connection, greeting and socket timeouts; query parameters of SMTP_URL win. Default 15 s. */
  smtpTimeoutMs?: number;
}

export function createMailSender(config: MailConfig, log: MailLog, options: MailSenderOptions = {}): MailSender {
  return config.smtpUrl ? smtpSender(config, options) : fileSender(config, log);
}

function smtpSender(config: MailConfig, options: MailSenderOptions): MailSender {
  const timeout = options.smtpTimeoutMs ?? 15_000;
  const transport = nodemailer.createTransport({
    url: config.smtpUrl!,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout * 2,
  });
  return {
    mode: 'smtp',
    async send(message) {
      const info = await transport.sendMail({
        from: config.mailFrom,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
      const rejected = (info.rejected ?? []) as unknown[];
      if (rejected.length > 0) throw new Error(`SMTP server rejected the recipient: ${String(info.response ?? '')}`);
      return { messageId: info.messageId };
    },
    close() {
      transport.close();
    },
  };
}

function fileSender(config: MailConfig, log: MailLog): MailSender {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    mode: 'file',
    async send(message) {
      const info = await transport.sendMail({
        from: config.mailFrom,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
      mkdirSync(config.outboxDir, { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = join(config.outboxDir, `${stamp}-${randomBytes(4).toString('hex')}.eml`);
      // the message may hold a full API key: readable by the service's user only, whatever the umask
      writePrivateFile(file, info.message as Buffer);
      log.info({ to: message.to, subject: message.subject, file }, `e-mail written to ${file} (SMTP_URL is not set)`);
      return { messageId: info.messageId, file };
    },
    close() {
      transport.close();
    },
  };
}
