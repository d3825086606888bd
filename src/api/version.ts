// /version: what kube-apiserver reports, for the Kubernetes version whose OpenAPI we serve.
export function versionInfo(gitVersion = 'v1.35.0'): Record<string, string> {
  const m = gitVersion.match(/^v(\d+)\.(\d+)/);
  return {
    major: m?.[1] ?? '1', minor: m?.[2] ?? '35', emulationMajor: m?.[1] ?? '1', emulationMinor: m?.[2] ?? '35',
    minCompatibilityMajor: m?.[1] ?? '1', minCompatibilityMinor: String(Math.max(0, Number(m?.[2] ?? '35') - 1)),
    gitVersion, gitCommit: '0000000000000000000000000000000000000000', gitTreeState: 'clean',
    buildDate: '2025-12-17T00:00:00Z', goVersion: 'go1.25.5', compiler: 'gc', platform: `${process.platform === 'win32' ? 'windows' : process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
