// Named, not default: under `nodenext` the default import is the module object (TS2351).
import { Decimal as DecimalJs } from "decimal.js";

/**
 * decimal.js's own `Decimal`, built exactly from the text the server sent; arithmetic has 20
 * significant digits unless configured with `Decimal.set`.
 */
export const Decimal = DecimalJs;
export type Decimal = DecimalJs;
