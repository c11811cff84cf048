/**
 * The built-in catalogue every world starts with: regions and zones, the public image projects
 * (readable by every authenticated principal, as the real public images are), machine types
 * and accelerator types. A project's world section adds to it.
 */
import { stableId } from '../../platform/crypto/stableId.ts';

export { stableId };

const REGION_NAMES = [
  'africa-south1', 'asia-east1', 'asia-east2', 'asia-northeast1', 'asia-northeast2', 'asia-northeast3', 'asia-south1', 'asia-south2',
  'asia-southeast1', 'asia-southeast2', 'australia-southeast1', 'australia-southeast2', 'europe-central2', 'europe-north1', 'europe-north2',
  'europe-southwest1', 'europe-west1', 'europe-west2', 'europe-west3', 'europe-west4', 'europe-west6', 'europe-west8', 'europe-west9',
  'europe-west10', 'europe-west12', 'me-central1', 'me-central2', 'me-west1', 'northamerica-northeast1', 'northamerica-northeast2',
  'northamerica-south1', 'southamerica-east1', 'southamerica-west1', 'us-central1', 'us-east1', 'us-east4', 'us-east5', 'us-south1',
  'us-west1', 'us-west2', 'us-west3', 'us-west4',
] as const;

/** Zones of each region: `-a/-b/-c` (us-central1 also `-f`; us-east1 has `-b/-c/-d`). */
export const REGIONS: ReadonlyMap<string, readonly string[]> = new Map(
  REGION_NAMES.map((r) => {
    const letters = r === 'us-central1' ? ['a', 'b', 'c', 'f'] : r === 'us-east1' ? ['b', 'c', 'd'] : r === 'europe-west1' ? ['b', 'c', 'd'] : ['a', 'b', 'c'];
    return [r, letters.map((l) => `${r}-${l}`)];
  }),
);

/** The creation time of every built-in region, zone, machine type and accelerator type. */
export const CATALOGUE_EPOCH = '1969-12-31T16:00:00.000-08:00';

/** Every built-in zone, by name, with its region. */
export const ZONES: ReadonlyMap<string, string> = new Map([...REGIONS].flatMap(([region, zones]) => zones.map((z) => [z, region] as const)));

const CPU_PLATFORMS = ['Intel Cascade Lake', 'Intel Ice Lake', 'Intel Sapphire Rapids', 'AMD Rome', 'AMD Milan', 'AMD Genoa'];

export function zoneResource(zone: string, project: string): Record<string, unknown> {
  const base = `https://www.googleapis.com/compute/v1/projects/${project}`;
  return {
    kind: 'compute#zone',
    id: stableId(`zone/${zone}`),
    creationTimestamp: CATALOGUE_EPOCH,
    name: zone,
    description: zone,
    status: 'UP',
    region: `${base}/regions/${ZONES.get(zone)}`,
    selfLink: `${base}/zones/${zone}`,
    availableCpuPlatforms: CPU_PLATFORMS,
    supportsPzs: false,
  };
}

export function regionResource(region: string, project: string): Record<string, unknown> {
  const base = `https://www.googleapis.com/compute/v1/projects/${project}`;
  return {
    kind: 'compute#region',
    id: stableId(`region/${region}`),
    creationTimestamp: CATALOGUE_EPOCH,
    name: region,
    description: region,
    status: 'UP',
    zones: (REGIONS.get(region) ?? []).map((z) => `${base}/zones/${z}`),
    quotas: [],
    selfLink: `${base}/regions/${region}`,
    supportsPzs: false,
  };
}

// ---- public images ---------------------------------------------------------------------------

interface ImageSeed {
  project: string;
  family: string;
  name: string;
  description: string;
  diskSizeGb: string;
  architecture?: 'X86_64' | 'ARM64';
  license: string;
  features: string[];
}

const LINUX_FEATURES = ['UEFI_COMPATIBLE', 'VIRTIO_SCSI_MULTIQUEUE', 'GVNIC', 'SEV_CAPABLE', 'SEV_SNP_CAPABLE', 'SEV_LIVE_MIGRATABLE_V2', 'IDPF', 'TDX_CAPABLE'];
const WINDOWS_FEATURES = ['MULTI_IP_SUBNET', 'UEFI_COMPATIBLE', 'VIRTIO_SCSI_MULTIQUEUE', 'WINDOWS', 'GVNIC'];

const IMAGE_SEEDS: ImageSeed[] = [
  { project: 'debian-cloud', family: 'debian-12', name: 'debian-12-bookworm-v20250610', description: 'Debian, Debian GNU/Linux, 12 (bookworm), amd64 built on 20250610', diskSizeGb: '10', license: 'debian-12-bookworm', features: LINUX_FEATURES },
  { project: 'debian-cloud', family: 'debian-12-arm64', name: 'debian-12-bookworm-arm64-v20250610', description: 'Debian, Debian GNU/Linux, 12 (bookworm), arm64 built on 20250610', diskSizeGb: '10', architecture: 'ARM64', license: 'debian-12-bookworm', features: ['UEFI_COMPATIBLE', 'VIRTIO_SCSI_MULTIQUEUE', 'GVNIC'] },
  { project: 'debian-cloud', family: 'debian-11', name: 'debian-11-bullseye-v20250610', description: 'Debian, Debian GNU/Linux, 11 (bullseye), amd64 built on 20250610', diskSizeGb: '10', license: 'debian-11-bullseye', features: LINUX_FEATURES },
  { project: 'ubuntu-os-cloud', family: 'ubuntu-2404-lts-amd64', name: 'ubuntu-2404-noble-amd64-v20250606', description: 'Canonical, Ubuntu, 24.04 LTS, amd64 noble image built on 2025-06-06', diskSizeGb: '10', license: 'ubuntu-2404-lts', features: LINUX_FEATURES },
  { project: 'ubuntu-os-cloud', family: 'ubuntu-2404-lts-arm64', name: 'ubuntu-2404-noble-arm64-v20250606', description: 'Canonical, Ubuntu, 24.04 LTS, arm64 noble image built on 2025-06-06', diskSizeGb: '10', architecture: 'ARM64', license: 'ubuntu-2404-lts', features: ['UEFI_COMPATIBLE', 'VIRTIO_SCSI_MULTIQUEUE', 'GVNIC'] },
  { project: 'ubuntu-os-cloud', family: 'ubuntu-2204-lts', name: 'ubuntu-2204-jammy-v20250605', description: 'Canonical, Ubuntu, 22.04 LTS, amd64 jammy image built on 2025-06-05', diskSizeGb: '10', license: 'ubuntu-2204-lts', features: LINUX_FEATURES },
  { project: 'ubuntu-os-cloud', family: 'ubuntu-2004-lts', name: 'ubuntu-2004-focal-v20250604', description: 'Canonical, Ubuntu, 20.04 LTS, amd64 focal image built on 2025-06-04', diskSizeGb: '10', license: 'ubuntu-2004-lts', features: LINUX_FEATURES },
  { project: 'ubuntu-os-cloud', family: 'ubuntu-minimal-2404-lts-amd64', name: 'ubuntu-minimal-2404-noble-amd64-v20250606', description: 'Canonical, Ubuntu Minimal, 24.04 LTS, amd64 noble image built on 2025-06-06', diskSizeGb: '10', license: 'ubuntu-minimal-2404-lts', features: LINUX_FEATURES },
  { project: 'cos-cloud', family: 'cos-stable', name: 'cos-stable-121-18867-90-38', description: 'Container-Optimized OS 121-18867.90.38 stable', diskSizeGb: '10', license: 'cos-pcid', features: LINUX_FEATURES },
  { project: 'cos-cloud', family: 'cos-121-lts', name: 'cos-121-18867-90-38', description: 'Container-Optimized OS 121-18867.90.38 LTS', diskSizeGb: '10', license: 'cos-pcid', features: LINUX_FEATURES },
  { project: 'cos-cloud', family: 'cos-117-lts', name: 'cos-117-18613-263-3', description: 'Container-Optimized OS 117-18613.263.3 LTS', diskSizeGb: '10', license: 'cos-pcid', features: LINUX_FEATURES },
  { project: 'cos-cloud', family: 'cos-arm64-stable', name: 'cos-arm64-stable-121-18867-90-38', description: 'Container-Optimized OS 121-18867.90.38 stable (arm64)', diskSizeGb: '10', architecture: 'ARM64', license: 'cos-pcid', features: ['UEFI_COMPATIBLE', 'VIRTIO_SCSI_MULTIQUEUE', 'GVNIC'] },
  { project: 'rocky-linux-cloud', family: 'rocky-linux-9', name: 'rocky-linux-9-v20250611', description: 'Rocky Linux, Rocky Linux, 9, x86_64 built on 20250611', diskSizeGb: '20', license: 'rocky-linux-9', features: LINUX_FEATURES },
  { project: 'rocky-linux-cloud', family: 'rocky-linux-8', name: 'rocky-linux-8-v20250611', description: 'Rocky Linux, Rocky Linux, 8, x86_64 built on 20250611', diskSizeGb: '20', license: 'rocky-linux-8', features: LINUX_FEATURES },
  { project: 'centos-cloud', family: 'centos-stream-9', name: 'centos-stream-9-v20250610', description: 'CentOS, CentOS, Stream 9, x86_64 built on 20250610', diskSizeGb: '20', license: 'centos-stream', features: LINUX_FEATURES },
  { project: 'rhel-cloud', family: 'rhel-9', name: 'rhel-9-v20250611', description: 'Red Hat, Red Hat Enterprise Linux, 9, x86_64 built on 20250611', diskSizeGb: '20', license: 'rhel-9-server', features: LINUX_FEATURES },
  { project: 'rhel-cloud', family: 'rhel-8', name: 'rhel-8-v20250611', description: 'Red Hat, Red Hat Enterprise Linux, 8, x86_64 built on 20250611', diskSizeGb: '20', license: 'rhel-8-server', features: LINUX_FEATURES },
  { project: 'suse-cloud', family: 'sles-15', name: 'sles-15-sp6-v20250530-x86-64', description: 'SUSE Linux Enterprise Server 15 SP6', diskSizeGb: '10', license: 'sles-15', features: LINUX_FEATURES },
  { project: 'fedora-coreos-cloud', family: 'fedora-coreos-stable', name: 'fedora-coreos-42-20250526-3-0-gcp-x86-64', description: 'Fedora CoreOS stable', diskSizeGb: '10', license: 'fedora-coreos-stable', features: LINUX_FEATURES },
  { project: 'windows-cloud', family: 'windows-2025', name: 'windows-server-2025-dc-v20250612', description: 'Microsoft, Windows Server, 2025, Server with Desktop Experience, x64 built on 20250612', diskSizeGb: '50', license: 'windows-server-2025-dc', features: WINDOWS_FEATURES },
  { project: 'windows-cloud', family: 'windows-2022', name: 'windows-server-2022-dc-v20250612', description: 'Microsoft, Windows Server, 2022, Server with Desktop Experience, x64 built on 20250612', diskSizeGb: '50', license: 'windows-server-2022-dc', features: WINDOWS_FEATURES },
  { project: 'windows-cloud', family: 'windows-2019', name: 'windows-server-2019-dc-v20250612', description: 'Microsoft, Windows Server, 2019, Server with Desktop Experience, x64 built on 20250612', diskSizeGb: '50', license: 'windows-server-2019-dc', features: WINDOWS_FEATURES },
];

function publicImage(s: ImageSeed): Record<string, unknown> {
  const base = `https://www.googleapis.com/compute/v1/projects/${s.project}/global`;
  return {
    kind: 'compute#image',
    id: stableId(`image/${s.project}/${s.name}`),
    creationTimestamp: '2025-06-10T09:24:45.123-07:00',
    name: s.name,
    description: s.description,
    sourceType: 'RAW',
    status: 'READY',
    archiveSizeBytes: String(Number(s.diskSizeGb) * 38_000_000),
    diskSizeGb: s.diskSizeGb,
    licenses: [`${base}/licenses/${s.license}`],
    family: s.family,
    selfLink: `${base}/images/${s.name}`,
    labelFingerprint: '42WmSpB8rSM=',
    guestOsFeatures: s.features.map((type) => ({ type })),
    licenseCodes: [stableId(`license/${s.license}`)],
    storageLocations: ['eu', 'asia', 'us'],
    architecture: s.architecture ?? 'X86_64',
  };
}

/**
 * The public image projects gcloud lists (`gcloud compute images list` asks each of them), readable
 * by every authenticated principal; those without catalogue images list none.
 */
export const PUBLIC_IMAGE_PROJECTS: readonly string[] = [
  'centos-cloud', 'cos-cloud', 'debian-cloud', 'fedora-coreos-cloud', 'opensuse-cloud', 'oracle-linux-cloud', 'rhel-cloud', 'rhel-sap-cloud',
  'rocky-linux-accelerator-cloud', 'rocky-linux-cloud', 'suse-cloud', 'suse-sap-cloud', 'ubuntu-os-accelerator-images', 'ubuntu-os-cloud',
  'ubuntu-os-pro-cloud', 'windows-cloud', 'windows-sql-cloud',
];

/** Public image projects: project -> images (newest per family); every project of PUBLIC_IMAGE_PROJECTS has an entry. */
export const PUBLIC_IMAGES: ReadonlyMap<string, readonly Record<string, unknown>[]> = (() => {
  const m = new Map<string, Record<string, unknown>[]>(PUBLIC_IMAGE_PROJECTS.map((p) => [p, []]));
  for (const s of IMAGE_SEEDS) {
    if (!m.has(s.project)) m.set(s.project, []);
    m.get(s.project)!.push(publicImage(s));
  }
  return m;
})();

// ---- machine types and accelerator types -----------------------------------------------------

interface MachineFamily {
  prefix: string;
  shapes: [kind: string, cpus: number[], memPerCpuMb: number][];
}

const FAMILIES: MachineFamily[] = [
  { prefix: 'e2', shapes: [['standard', [2, 4, 8, 16, 32], 4096], ['highmem', [2, 4, 8, 16], 8192], ['highcpu', [2, 4, 8, 16, 32], 1024]] },
  { prefix: 'n1', shapes: [['standard', [1, 2, 4, 8, 16, 32, 64, 96], 3840], ['highmem', [2, 4, 8, 16, 32, 64, 96], 6656], ['highcpu', [2, 4, 8, 16, 32, 64, 96], 921.6]] },
  { prefix: 'n2', shapes: [['standard', [2, 4, 8, 16, 32, 48, 64, 80, 96, 128], 4096], ['highmem', [2, 4, 8, 16, 32, 48, 64, 80, 96, 128], 8192], ['highcpu', [2, 4, 8, 16, 32, 48, 64, 80, 96], 1024]] },
  { prefix: 'n2d', shapes: [['standard', [2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224], 4096], ['highmem', [2, 4, 8, 16, 32, 48, 64, 80, 96], 8192], ['highcpu', [2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224], 1024]] },
  { prefix: 'c2', shapes: [['standard', [4, 8, 16, 30, 60], 4096]] },
  { prefix: 'c2d', shapes: [['standard', [2, 4, 8, 16, 32, 56, 112], 4096]] },
  { prefix: 'c3', shapes: [['standard', [4, 8, 22, 44, 88, 176], 4096], ['highmem', [4, 8, 22, 44, 88, 176], 8192], ['highcpu', [4, 8, 22, 44, 88, 176], 2048]] },
  { prefix: 'c4', shapes: [['standard', [2, 4, 8, 16, 32, 48, 96, 192], 3840]] },
  { prefix: 'n4', shapes: [['standard', [2, 4, 8, 16, 32, 48, 64, 80], 4096]] },
  { prefix: 't2d', shapes: [['standard', [1, 2, 4, 8, 16, 32, 48, 60], 4096]] },
  { prefix: 't2a', shapes: [['standard', [1, 2, 4, 8, 16, 32, 48], 4096]] },
  { prefix: 'm1', shapes: [['ultramem', [40, 80, 160], 24576]] },
];

export interface MachineTypeInfo {
  name: string;
  guestCpus: number;
  memoryMb: number;
  description: string;
}

export const MACHINE_TYPES: ReadonlyMap<string, MachineTypeInfo> = (() => {
  const m = new Map<string, MachineTypeInfo>();
  const add = (name: string, guestCpus: number, memoryMb: number, description: string) => m.set(name, { name, guestCpus, memoryMb, description });
  add('e2-micro', 2, 1024, 'Efficient Instance, 2 vCPU (1/8 shared hyperthread) and 1 GB of memory');
  add('e2-small', 2, 2048, 'Efficient Instance, 2 vCPU (1/4 shared hyperthread) and 2 GB of memory');
  add('e2-medium', 2, 4096, 'Efficient Instance, 2 vCPU (1/2 shared hyperthread) and 4 GB of memory');
  add('f1-micro', 1, 614, '1 vCPU (shared physical core) and 0.6 GB RAM');
  add('g1-small', 1, 1740, '1 vCPU (shared physical core) and 1.7 GB RAM');
  add('a2-highgpu-1g', 12, 87040, 'Accelerator Optimized: 1 NVIDIA Tesla A100 GPU, 12 vCPUs, 85GB RAM');
  add('a2-highgpu-2g', 24, 174080, 'Accelerator Optimized: 2 NVIDIA Tesla A100 GPUs, 24 vCPUs, 170GB RAM');
  add('g2-standard-4', 4, 16384, '4 vCPUs 16 GB RAM, 1 NVIDIA L4 GPU');
  add('g2-standard-8', 8, 32768, '8 vCPUs 32 GB RAM, 1 NVIDIA L4 GPU');
  for (const f of FAMILIES) {
    for (const [kind, cpus, per] of f.shapes) {
      for (const n of cpus) add(`${f.prefix}-${kind}-${n}`, n, Math.round(n * per), `${n} vCPU${n > 1 ? 's' : ''}, ${Math.round((n * per) / 1024)} GB RAM`);
    }
  }
  return m;
})();

/** Custom machine types: `custom-CPUS-MEM`, `FAMILY-custom-CPUS-MEM[-ext]`. */
export const CUSTOM_MACHINE_TYPE = /^(?:(?:e2|n2|n2d|n4)-)?custom-([1-9][0-9]{0,2})-([1-9][0-9]{2,7})(?:-ext)?$/;

export const ACCELERATOR_TYPES: ReadonlyMap<string, string> = new Map([
  ['nvidia-tesla-t4', 'NVIDIA T4'],
  ['nvidia-tesla-t4-vws', 'NVIDIA Tesla T4 Virtual Workstation'],
  ['nvidia-l4', 'NVIDIA L4'],
  ['nvidia-tesla-v100', 'NVIDIA V100'],
  ['nvidia-tesla-p100', 'NVIDIA Tesla P100'],
  ['nvidia-tesla-p4', 'NVIDIA Tesla P4'],
  ['nvidia-tesla-a100', 'NVIDIA A100 40GB'],
  ['nvidia-a100-80gb', 'NVIDIA A100 80GB'],
  ['nvidia-h100-80gb', 'NVIDIA H100 80GB'],
]);

/** A catalogue machine type as `machineTypes.get` answers it in `zone` (its `zone` field is the zone's name, as Compute writes it). */
export function machineTypeResource(t: MachineTypeInfo, zone: string, project: string): Record<string, unknown> {
  return {
    kind: 'compute#machineType',
    id: stableId(`machineType/${t.name}`),
    creationTimestamp: CATALOGUE_EPOCH,
    name: t.name,
    description: t.description,
    guestCpus: t.guestCpus,
    memoryMb: t.memoryMb,
    imageSpaceGb: 0,
    maximumPersistentDisks: t.name.startsWith('e2-') && t.guestCpus <= 2 && t.memoryMb <= 4096 ? 16 : 128,
    maximumPersistentDisksSizeGb: t.name.startsWith('e2-') && t.guestCpus <= 2 && t.memoryMb <= 4096 ? '3072' : '263168',
    zone,
    selfLink: `https://www.googleapis.com/compute/v1/projects/${project}/zones/${zone}/machineTypes/${t.name}`,
    isSharedCpu: /^(e2-(micro|small|medium)|f1-micro|g1-small)$/.test(t.name),
    ...(t.name.startsWith('t2a-') ? { architecture: 'ARM64' } : {}),
  };
}

/** A catalogue accelerator type as `acceleratorTypes.get` answers it in `zone`. */
export function acceleratorTypeResource(name: string, description: string, zone: string, project: string): Record<string, unknown> {
  const base = `https://www.googleapis.com/compute/v1/projects/${project}/zones/${zone}`;
  return {
    kind: 'compute#acceleratorType',
    id: stableId(`acceleratorType/${name}`),
    creationTimestamp: CATALOGUE_EPOCH,
    name,
    description,
    zone: base,
    selfLink: `${base}/acceleratorTypes/${name}`,
    maximumCardsPerInstance: name.includes('h100') || name.includes('a100') ? 16 : name.includes('l4') ? 8 : 4,
  };
}
