// The generated types check every call the client makes (src/core/transport.ts, `operation`): a call
// with a parameter the spec does not have, of the wrong type, or without one it requires does not
// compile. Each line below would compile if `operation` took its init untyped.
import { operation } from "../../src/core/http/operation";

operation("getOrder", { params: { path: { orderNumber: 1 } } });
// @ts-expect-error a path parameter the operation does not have
operation("getOrder", { params: { path: { orderId: 1 } } });
// @ts-expect-error a path parameter of the wrong type
operation("getOrder", { params: { path: { orderNumber: "1" } } });
// @ts-expect-error the required path parameter left out
operation("getOrder", {});
operation("listOrders", { params: { query: { siteId: 12, limit: 50, cursor: "c" } } });
// @ts-expect-error a query parameter the operation does not have
operation("listOrders", { params: { query: { site: 12 } } });
operation("quoteProduct", { params: { path: { productId: "SLO_1" } }, body: { quantity: 1 } });
// @ts-expect-error a body of the wrong shape
operation("quoteProduct", { params: { path: { productId: "SLO_1" } }, body: { qty: 1 } });
// @ts-expect-error an operation the spec does not have
operation("getOrders", {});
// @ts-expect-error the token request is not sent on this path
operation("createToken", {});
