// The named export, not the default one: under `moduleResolution: nodenext` a partner's TypeScript
// reads decimal.d.ts as CommonJS, where the default import is the module object, not the class
// (`new Decimal()` would be TS2351 "not constructable" in our published declarations).
import { Decimal as DecimalJs } from "decimal.js";

/**
 * The `Decimal` every money field is given as: decimal.js's own constructor, so values compare and
 * combine with any `Decimal` a partner builds from decimal.js. Values are always constructed exactly
 * from the text the server sent; arithmetic precision is decimal.js's (20 significant digits unless
 * configured with `Decimal.set`).
 */
export const Decimal = DecimalJs;
export type Decimal = DecimalJs;
