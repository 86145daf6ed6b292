NGPU=8
PROCS=$NGPU
accelerate launch --num_processes $PROCS train.py
