// The provider binary npm start runs for each cloud, keyed by its descriptor's name: the binary's own flag parser
// and prepare function (as its main() runs them), without runUntilSignal. It stays in cmd/ because sim/ may not
// import the binaries; everything else about a cloud's local run is sim/<cloud>/local.ts.
import type { Command } from 'commander';
import type { PreparedProvider, ProviderPrepareOptions } from '../internal/index.js';
import * as aws from '../machine-api-provider-aws.js';
import * as gcp from '../machine-api-provider-gcp.js';
import * as ibmcloud from '../machine-api-provider-ibmcloud.js';
import { parseArgs, type LocalBinary } from './local-binary.js';

interface ProviderBinaryModule {
  COMPONENT: string;
  buildProgram(env: NodeJS.ProcessEnv): Command;
}

type Prepare = (program: Command, opts: ProviderPrepareOptions) => Promise<PreparedProvider>;

function providerBinary(mod: ProviderBinaryModule, prepare: Prepare): LocalBinary {
  return {
    name: mod.COMPONENT,
    script: `cmd/${mod.COMPONENT}.ts`,
    async prepare(args, opts) {
      const { manager, close } = await prepare(parseArgs(mod.buildProgram(opts.env), args), opts);
      return { manager, close: () => void close() };
    },
  };
}

export const providerBinaries: Readonly<Record<string, LocalBinary>> = {
  aws: providerBinary(aws, aws.prepareAwsProvider),
  gcp: providerBinary(gcp, gcp.prepareGcpProvider),
  ibmcloud: providerBinary(ibmcloud, ibmcloud.prepareIbmCloudProvider),
};
