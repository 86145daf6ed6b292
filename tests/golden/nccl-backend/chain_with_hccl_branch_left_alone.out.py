class OnebitAdam:
    def __init__(self, comm_backend_name="hccl"):
        self.comm_backend_name = comm_backend_name
        if self.comm_backend_name == 'nccl':
            from deepspeed.runtime.comm.nccl import NcclBackend
            self.handle = NcclBackend()
        elif self.comm_backend_name == 'mpi':
            self.handle = None
        elif self.comm_backend_name == 'hccl':
            from deepspeed.runtime.comm.hccl import HcclBackend
            self.handle = HcclBackend()


def backend_for(backend):
    if backend == "hccl":
        return 1
    return 0
