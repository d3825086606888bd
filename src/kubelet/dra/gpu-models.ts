// The GPU models the simulated DRA driver (gpu.bonsai.dev) knows, by the product name a node's
// `nvidia.com/gpu.product` label carries (as NVIDIA's GPU feature discovery writes it). Figures are the public
// specifications; MIG profiles list the placements NVIDIA's MIG manager offers (start slice, size in memory slices).

export interface MigProfile {
  /** NVIDIA's profile name, e.g. `1g.10gb`. */
  name: string;
  multiprocessors: number;
  copyEngines: number;
  decoders: number;
  encoders: number;
  jpegEngines: number;
  ofaEngines: number;
  memory: string;
  /** Memory slices the profile takes, and where an instance may start. */
  size: number;
  starts: number[];
}

export interface GpuModel {
  /** The `nvidia.com/gpu.product` label value. */
  product: string;
  /** The device attribute `productName`, as nvidia-smi prints it. */
  productName: string;
  architecture: string;
  cudaComputeCapability: string;
  memory: string;
  multiprocessors: number;
  /** Memory slices of the whole GPU (MIG-capable models); 0 when the model has no MIG. */
  memorySlices: number;
  mig: MigProfile[];
}

const mig = (name: string, sm: number, engines: number, memory: string, size: number, starts: number[], ofa = 0): MigProfile => ({
  name, multiprocessors: sm, copyEngines: engines, decoders: engines, encoders: 0, jpegEngines: engines, ofaEngines: ofa, memory, size, starts,
});

export const gpuModels: readonly GpuModel[] = [
  {
    product: 'NVIDIA-H100-80GB-HBM3', productName: 'NVIDIA H100 80GB HBM3', architecture: 'Hopper', cudaComputeCapability: '9.0.0',
    memory: '80Gi', multiprocessors: 132, memorySlices: 8,
    mig: [
      mig('1g.10gb', 16, 1, '10Gi', 1, [0, 1, 2, 3, 4, 5, 6]),
      mig('2g.20gb', 32, 2, '20Gi', 2, [0, 2, 4]),
      mig('3g.40gb', 60, 3, '40Gi', 4, [0, 4]),
      mig('4g.40gb', 64, 4, '40Gi', 4, [0]),
      mig('7g.80gb', 132, 7, '80Gi', 8, [0], 1),
    ],
  },
  {
    product: 'NVIDIA-A100-SXM4-40GB', productName: 'NVIDIA A100-SXM4-40GB', architecture: 'Ampere', cudaComputeCapability: '8.0.0',
    memory: '40Gi', multiprocessors: 108, memorySlices: 8,
    mig: [
      mig('1g.5gb', 14, 1, '5Gi', 1, [0, 1, 2, 3, 4, 5, 6]),
      mig('2g.10gb', 28, 2, '10Gi', 2, [0, 2, 4]),
      mig('3g.20gb', 42, 3, '20Gi', 4, [0, 4]),
      mig('4g.20gb', 56, 4, '20Gi', 4, [0]),
      mig('7g.40gb', 98, 7, '40Gi', 8, [0], 1),
    ],
  },
  {
    product: 'NVIDIA-A100-SXM4-80GB', productName: 'NVIDIA A100-SXM4-80GB', architecture: 'Ampere', cudaComputeCapability: '8.0.0',
    memory: '80Gi', multiprocessors: 108, memorySlices: 8,
    mig: [
      mig('1g.10gb', 14, 1, '10Gi', 1, [0, 1, 2, 3, 4, 5, 6]),
      mig('2g.20gb', 28, 2, '20Gi', 2, [0, 2, 4]),
      mig('3g.40gb', 42, 3, '40Gi', 4, [0, 4]),
      mig('4g.40gb', 56, 4, '40Gi', 4, [0]),
      mig('7g.80gb', 98, 7, '80Gi', 8, [0], 1),
    ],
  },
  {
    product: 'NVIDIA-L4', productName: 'NVIDIA L4', architecture: 'Ada Lovelace', cudaComputeCapability: '8.9.0',
    memory: '24Gi', multiprocessors: 58, memorySlices: 0, mig: [],
  },
  {
    product: 'Tesla-T4', productName: 'Tesla T4', architecture: 'Turing', cudaComputeCapability: '7.5.0',
    memory: '16Gi', multiprocessors: 40, memorySlices: 0, mig: [],
  },
];

/** Short names a cluster file may use for a pool's GPUs (`gpu: { model: h100-80gb }`). */
export const gpuModelAliases: Readonly<Record<string, string>> = {
  'h100-80gb': 'NVIDIA-H100-80GB-HBM3',
  'a100-40gb': 'NVIDIA-A100-SXM4-40GB',
  'a100-80gb': 'NVIDIA-A100-SXM4-80GB',
  l4: 'NVIDIA-L4',
  t4: 'Tesla-T4',
};

/** The model of a product label; unknown products are described as an H100 would be, under their own name. */
export function gpuModel(product: string | undefined): GpuModel {
  const known = gpuModels.find((m) => m.product === product);
  if (known || !product) return known ?? gpuModels[0];
  return { ...gpuModels[0], product, productName: product.replaceAll('-', ' '), mig: [], memorySlices: 0 };
}

/** The simulated driver's version figures, as NVIDIA's driver 580 reports them. */
export const driverVersions = { driverVersion: '580.105.8', cudaDriverVersion: '13.0.0' } as const;
