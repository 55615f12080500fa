#!/usr/bin/env node
/**
 * `partner-orders`: the SDK from a shell, for scripts and operators (README, "Command line"). Every
 * command reads PARTNER_ORDERS_BASE_URL, PARTNER_ORDERS_CLIENT_ID and PARTNER_ORDERS_CLIENT_SECRET
 * (or --base-url, --client-id, --client-secret), prints text on a terminal and JSON with --json,
 * and exits non-zero with the error's code on failure. The commands live in src/cli/.
 */
import { main } from "./cli/main";

void main(process.argv.slice(2));
