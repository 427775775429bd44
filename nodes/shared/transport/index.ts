// The only way the nodes talk to the service; each module below has one purpose.
export { checkBaseUrl, resolveService } from './service';
export type { ServiceTarget } from './service';
export { apiRequest, releaseRoom, reserveRoom, sendRequest } from './request';
export { cancelSignal, now, pause, wait } from './time';
export { apiRequestAllItems } from './pages';
export { readBody, unwrapEnvelope } from './envelope';
export { RETRY_POLICY, backoffMs } from './retry';
export { downloadBinary } from './download';
export { checkUploadSource, readUploadSource, uploadAsset } from './upload';
export { PACING } from './pacer';
export { PACING_MEMORY, pacerFor, processPacing } from './pacers';
export type {
	BinaryStream,
	Page,
	Priority,
	RawResponse,
	ServiceContext,
	ServiceRequest,
} from './types';
