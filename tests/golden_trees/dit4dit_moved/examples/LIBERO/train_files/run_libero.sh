# Upstream switched to torchrun.
torchrun --nproc_per_node 8 DiT4DiT/training/train.py --config_yaml ./DiT4DiT/config/libero/dit4dit_libero.yaml
