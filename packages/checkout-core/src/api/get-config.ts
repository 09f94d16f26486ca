import { type ApiContext, request } from "./http.js";

export interface SdkConfig {
  error_reporting: { is_enabled: boolean; endpoint: string };
}

/** `GET /v1/sdk/config`: the SDK's studio configuration. */
export const getConfig = (ctx: ApiContext) => request<SdkConfig>(ctx, "GET", "/v1/sdk/config");
