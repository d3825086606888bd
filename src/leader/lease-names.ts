// The Leases a Bonsai process campaigns for, in kube-system: upstream's for the controller manager and the
// scheduler, Bonsai's own for the add-ons and for the simulated kubelets in leader mode.
export const leaseNames = {
  controllerManager: 'kube-controller-manager',
  scheduler: 'kube-scheduler',
  addons: 'bonsai-addons',
  kubelets: 'bonsai-kubelets',
} as const;
