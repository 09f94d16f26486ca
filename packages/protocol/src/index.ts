export * from "./callback.js";
export * from "./currency.js";
export * from "./duration.js";
export * from "./errors.js";
export * from "./ids.js";
export * from "./money.js";
export * from "./payment-method.js";
export * from "./states.js";
