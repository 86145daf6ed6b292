from nvidia.dali import fn, pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator


@pipeline_def(batch_size=8, num_threads=4, device_id=0)
def video_pipe(files):
    return fn.readers.video(device="gpu", filenames=files, sequence_length=16)


loader = DALIGenericIterator(video_pipe(files), ["frames"])
