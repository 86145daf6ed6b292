#!/bin/bash
# nvidia-smi is not needed
echo "check nvidia-smi for memory"
echo nvidia-smi
printf '%s\n' 'nvidia-smi'
