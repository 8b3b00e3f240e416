// Package callbacks holds Keras' training callbacks for keras.Model.Fit,
// with Keras' names, defaults and semantics:
//
//   - [ModelCheckpoint] saves the model or its weights, every epoch or the
//     best only, to a path template such as "ckpt_{epoch:04d}.weights.npz"
//     (Python format syntax, see [Format]);
//   - [EarlyStopping] stops training when a monitored quantity stops
//     improving, optionally restoring the best weights;
//   - [ReduceLROnPlateau] and [LearningRateScheduler] change the
//     optimizer's learning rate;
//   - [CSVLogger] writes the epochs' logs to a CSV file;
//   - [TerminateOnNaN] stops training on a NaN or infinite loss;
//   - [LambdaCallback] is a callback made of functions;
//   - [BackupAndRestore] lets an interrupted Fit resume where it stopped;
//   - [TensorBoard] writes event files for TensorBoard: scalars per epoch
//     or batch and weight histograms.
//
// Keras' keyword arguments are [Option] values named after them
// (Monitor("val_accuracy"), Patience(3), SaveBestOnly(true), ...); an
// option a callback does not take is an error that the callback's Err and
// Fit report. Epochs are 0-based in callbacks, as in Keras; file name
// templates see epoch+1.
//
//	hist, err := model.Fit(x, y, keras.FitConfig{
//		Epochs:         50,
//		ValidationData: [2]*tensor.Dense{xVal, yVal},
//		Callbacks: []keras.Callback{
//			callbacks.NewEarlyStopping(callbacks.Patience(3), callbacks.RestoreBestWeights(true)),
//			callbacks.NewModelCheckpoint("ckpt/best.keras", callbacks.SaveBestOnly(true)),
//			callbacks.NewReduceLROnPlateau(callbacks.Factor(0.5), callbacks.Patience(2)),
//			callbacks.NewCSVLogger("training.csv"),
//			callbacks.NewTensorBoard("logs", callbacks.HistogramFreq(1)),
//		},
//	})
//
// Callbacks that stop training call Model.StopTraining; Fit honours it at
// the end of the epoch under way.
//
// # Interrupting training
//
// Fit stops at the end of the batch under way when FitConfig.Context is
// cancelled: it calls the callbacks' OnTrainEnd and returns an error
// wrapping the context's (errors.Is(err, context.Canceled)), with the
// history so far. signal.NotifyContext turns Ctrl-C (SIGINT), or the
// SIGTERM of a job scheduler, into that cancellation; with
// [BackupAndRestore] the next run resumes after the last completed epoch:
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	go func() { <-ctx.Done(); stop() }() // a second Ctrl-C kills at once
//	hist, err := model.Fit(x, y, keras.FitConfig{
//		Epochs:    100,
//		Context:   ctx,
//		Callbacks: []keras.Callback{callbacks.NewBackupAndRestore("backup")},
//	})
//	if errors.Is(err, context.Canceled) {
//		log.Printf("interrupted after %d epochs; run again to resume", len(hist.Epoch))
//	}
//
// BackupAndRestore keeps its backup when Fit is interrupted in the middle
// of an epoch and deletes it when Fit completes.
package callbacks
