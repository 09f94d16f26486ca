export { type AppDeps, buildApp } from "./app.js";
export { loadConfig, redactConfig, type ServiceConfig } from "./config.js";
export { type Db, openDb, openPglite, openPostgres } from "./db/client.js";
export { migrate } from "./db/migrate.js";
export { type RunningService, startService } from "./server.js";
