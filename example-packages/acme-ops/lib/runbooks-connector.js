// The source connector factory: the loader imports it and calls it with the admin's config.
// Secrets are never in config: the token comes from the injected CredentialResolver.
export function createRunbooksConnector(config, { credentials }) {
  return {
    capabilities: ["read", "list", "search"],
    async list(path) {
      const token = await credentials.resolve("acme-ops.runbooksToken");
      return { space: config.space, path, authorized: Boolean(token), entries: [] };
    },
  };
}
export default createRunbooksConnector;
