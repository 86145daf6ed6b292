#!/bin/bash
cat > job.sh <<'EOF'
export CUDA_VISIBLE_DEVICES=0
echo see CUDA_VISIBLE_DEVICES in the docs
EOF
python - <<EOF
import os
print(os.environ["CUDA_VISIBLE_DEVICES"], "$NCCL_TIMEOUT")
EOF
cat <<-END
	usage: CUDA_VISIBLE_DEVICES=0 ./run.sh
	END
export ASCEND_RT_VISIBLE_DEVICES=1
