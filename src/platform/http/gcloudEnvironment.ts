/**
 * The environment that points the Google Cloud CLI at a cloudtwin at `url` (its API endpoint
 * overrides; the gcloud compatibility suites use the same): what `cloudtwin exec` gives its
 * command and what the test fixture's `clientOptions().gcloud` returns.
 */
export function gcloudEnvironment(url: string): Record<string, string> {
  return {
    CLOUDSDK_API_ENDPOINT_OVERRIDES_APIKEYS: `${url}/`,
    CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE: `${url}/compute/v1/`,
    CLOUDSDK_API_ENDPOINT_OVERRIDES_SERVICEUSAGE: `${url}/`,
    CLOUDSDK_CORE_DISABLE_USAGE_REPORTING: 'true',
  };
}
