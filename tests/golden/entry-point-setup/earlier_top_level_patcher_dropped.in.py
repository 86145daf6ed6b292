"""Train a tiny model; the loop runs at import, as in many research scripts."""

# Added by the migration (entry-point-setup): the npu runtime, its safety net and the
# mx_driving patcher load before anything builds a device, an accelerator or a process
# group. Where they are missing the script warns and runs without them.
try:
    import torch_npu  # noqa: F401
    import torch_npu.contrib.transfer_to_npu  # noqa: F401
    from mx_driving.patcher import default_patcher_builder
except (ImportError, RuntimeError, OSError) as error:
    import warnings
    default_patcher_builder = None
    warnings.warn(f"npu set-up incomplete, running without it: {error!r}", stacklevel=1)
# Added by the migration (entry-point-setup): apply the mx_driving patches first, as
# entering `with default_patcher_builder.build():` does (its exit undoes nothing).
if default_patcher_builder is not None:
    default_patcher_builder.build().__enter__()
# End of the migration's set-up.

import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    loss = model(torch.randn(8, 4)).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
