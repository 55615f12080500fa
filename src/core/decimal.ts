// Named, not default: under `nodenext` the default import is the module object (TS2351).
import { Decimal as DecimalJs } from "decimal.js";

/** decimal.js's `Decimal`, exact from the server's text; arithmetic has 20 significant digits. */
export const Decimal = DecimalJs;
export type Decimal = DecimalJs;
