/**
 * The modules every entry must load from one file, built on its own as dist/shared.js: the error
 * family (an error thrown through one subpath is `instanceof` the class another exports) and the
 * webhook events with their `WebhookPayloadError`, and the two small modules these import. Every entry bundles the rest of its code itself
 * and imports these from dist/shared.js (tsup.config.ts), so the root loads two files of ours.
 */
export * from "../core/errors";
export * from "../core/redact";
export * from "../webhooks/body";
export * from "../webhooks/events";
