export { PageRedirect } from "./PageRedirect.js";
