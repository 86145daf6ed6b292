"""Train a tiny model; the loop runs at import, as in many research scripts."""

# Added by the migration (entry-point-setup): the npu runtime and its safety net load
# before anything builds a device, an accelerator or a process group; where they
# cannot, the script stops here and says what to do. The mx_driving patcher is
# optional: without mx_driving the script runs unpatched.
try:
    import torch_npu  # noqa: F401
    import torch_npu.contrib.transfer_to_npu  # noqa: F401
except (ImportError, RuntimeError, OSError) as error:
    raise ImportError(
        "torch_npu did not load: source CANN's set_env.sh first "
        "(/usr/local/Ascend/ascend-toolkit/set_env.sh, or "
        "~/Ascend/ascend-toolkit/set_env.sh for a per-user install), and install "
        "the torch-npu release that matches the installed torch (this migration "
        "targeted torch-npu 2.7.1.post11, for torch 2.7.1)"
    ) from error
try:
    from mx_driving.patcher import default_patcher_builder
except ModuleNotFoundError as error:
    if error.name != "mx_driving":
        raise
    default_patcher_builder = None
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
