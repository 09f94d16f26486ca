/** Security requirements of the OpenAPI document, one constant per auth mode. */
type Security = { [scheme: string]: string[] }[];

export const PRIVATE_SECURITY: Security = [{ apiKey: [] }, { basic: [] }];
export const PUBLIC_SECURITY: Security = [{ apiKey: [] }];
export const ADMIN_SECURITY: Security = [{ adminToken: [] }];
