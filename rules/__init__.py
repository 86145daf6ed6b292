"""Generic CUDA -> NPU rules, one rule per module.

Code policy (codes are stable and never reused, even when a rule is removed):

| range          | meaning                                                              |
|----------------|----------------------------------------------------------------------|
| NPU001-NPU029  | Python rewrites of device, precision and API constructs               |
| NPU030-NPU049  | entry-point set-up (torch_npu, transfer_to_npu, mx_driving patcher)   |
| NPU050-NPU099  | Python constructs that cannot be migrated: warnings, never rewrites   |
| NPU100-NPU149  | shell scripts, requirements files and other non-Python files          |
| DIT001-DIT099  | the DiT4DiT profile (package `target_dit4dit`)                        |

Order: rules run by (priority, code). Priorities say what a rule does to lines, so that
reports keep the file's own line numbers and later rules see settled code:

| priority | rules that                                                          |
|----------|---------------------------------------------------------------------|
| 100      | edit within lines (the default)                                     |
| 700      | move whole statements                                               |
| 800      | insert whole lines inside functions                                 |
| 900      | insert module-level set-up (entry-point-setup)                      |

A rule's safety is "safe" when its edit keeps the program's meaning on the NPU, and
"needs review" when a person should confirm it (an individual edit can also be flagged).
"""
