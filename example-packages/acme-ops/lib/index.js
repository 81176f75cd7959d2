export { createRunbooksConnector } from "./runbooks-connector.js";
